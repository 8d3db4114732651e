// The live connections every tab of this console shares (a SharedWorker): one EventSource per stream URL, whatever
// the number of tabs, so a browser's six connections per host are never used up by tabs. Tabs post
// `{type: 'join', url}` and `{type: 'leave', url}` (no url: every stream of that tab); the worker posts, naming the
// stream's url, `{type: 'status', url, status, reopened}`, `{type: 'events', url, data: [json…]}` (batched every few
// ms) and `{type: 'resync', url, data}`.
//
// A filtered stream starts after a given event (`lastEventId=` in its URL: the newest one the page read). A tab joining such
// a stream after it opened is first sent what it already delivered (the last REPLAY events): the tab read its page
// at the same point, so it needs them. When the worker opens such a stream again itself (after the server went away),
// it resumes after the last event it got, as EventSource's own reconnections do with Last-Event-ID.

const feeds = new Map(); // url → { url, ports: Set, source, status, timer, pending, flush, replay, lastId }
const BATCH_MS = 16;
const REPLAY = 1000;

function post(feed, message) {
  for (const port of feed.ports) port.postMessage({ ...message, url: feed.url });
}

function setStatus(feed, status, reopened = false) {
  feed.status = status;
  post(feed, { type: 'status', status, reopened });
}

/** The feed's URL, resuming after the last event received when it starts after one. */
function resumeURL(feed) {
  if (!feed.replay || feed.lastId == null) return feed.url;
  const url = new URL(feed.url);
  url.searchParams.set('lastEventId', feed.lastId);
  return url.href;
}

function open(feed) {
  const source = new EventSource(resumeURL(feed));
  feed.source = source;
  source.addEventListener('open', () => {
    const reopened = feed.status !== 'live' && feed.status !== 'connecting';
    setStatus(feed, 'live', reopened);
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) {
      // The server refused (e.g. 401) or went away for good: EventSource gives up, so we retry ourselves.
      source.close();
      feed.source = null;
      setStatus(feed, 'offline');
      clearTimeout(feed.timer);
      feed.timer = setTimeout(() => { if (feeds.get(feed.url) === feed) open(feed); }, 5000);
    } else {
      setStatus(feed, 'reconnecting');
    }
  });
  source.addEventListener('entitlement', (message) => {
    if (message.lastEventId) feed.lastId = message.lastEventId;
    if (feed.replay) {
      feed.replay.push(message.data);
      if (feed.replay.length > REPLAY * 2) feed.replay = feed.replay.slice(-REPLAY);
    }
    feed.pending.push(message.data);
    if (!feed.flush) {
      feed.flush = setTimeout(() => {
        feed.flush = null;
        const data = feed.pending;
        feed.pending = [];
        post(feed, { type: 'events', data });
      }, BATCH_MS);
    }
  });
  // The server found this connection too slow and ends it; EventSource comes back with Last-Event-ID and the
  // server sends the gap. Nothing is lost: the tabs are only told.
  source.addEventListener('resync', (message) => post(feed, { type: 'resync', data: message.data }));
}

function leave(port, url) {
  for (const feed of [...feeds.values()]) {
    if ((url && feed.url !== url) || !feed.ports.delete(port) || feed.ports.size) continue;
    feed.source?.close();
    clearTimeout(feed.timer);
    clearTimeout(feed.flush);
    feeds.delete(feed.url);
  }
}

self.addEventListener('connect', (connection) => {
  const port = connection.ports[0];
  port.addEventListener('message', ({ data }) => {
    if (data?.type === 'join') {
      let feed = feeds.get(data.url);
      const joining = Boolean(feed);
      if (!feed) {
        const replay = new URL(data.url).searchParams.has('lastEventId') ? [] : null;
        feed = { url: data.url, ports: new Set(), source: null, status: 'connecting', timer: null, pending: [], flush: null, replay, lastId: null };
        feeds.set(data.url, feed);
        open(feed);
      }
      feed.ports.add(port);
      port.postMessage({ type: 'status', url: feed.url, status: feed.status, reopened: false });
      // Sent to this tab before anything newer: what the stream delivered before it joined (not yet in `pending`).
      const delivered = joining && feed.replay ? feed.replay.slice(0, feed.replay.length - feed.pending.length) : [];
      if (delivered.length) port.postMessage({ type: 'events', url: feed.url, data: delivered.slice(-REPLAY) });
    } else if (data?.type === 'leave') {
      leave(port, data.url);
    }
  });
  port.start();
});

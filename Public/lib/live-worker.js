// The live connections every tab of this console shares (a SharedWorker): one EventSource per stream, whatever the
// number of tabs, so a browser's six connections per host are never used up by tabs. Tabs post `{type: 'join', url}`
// and `{type: 'leave', url}` (no url: every stream of that tab); the worker posts, naming the url the tab joined with,
// `{type: 'status', url, status, reopened}`, `{type: 'events', url, data: [json…]}` (batched every few ms) and
// `{type: 'resync', url, data}`.
//
// A filtered stream starts after a given event (`lastEventId=` in its URL: the newest one the page read). Tabs with
// the same filter share one stream even when they start after different events: a tab joining it is first sent what
// the stream delivered after the tab's starting point (the worker keeps the last REPLAY events), then what arrives;
// the tab skips what it already has. Only a tab starting before what the worker still holds gets a stream of its own.
// When the worker opens a stream again itself (after the server went away), it resumes after the last event it got,
// as EventSource's own reconnections do with Last-Event-ID.

// key (the URL without its starting point; the URL itself for a stream of its own) → feed:
// { key, url, ports: Map(port → the url it joined with), source, status, timer, pending, flush, replay, from, lastId }
const feeds = new Map();
const BATCH_MS = 16;
const REPLAY = 1000;

function post(feed, message) {
  for (const [port, url] of feed.ports) port.postMessage({ ...message, url });
}

function setStatus(feed, status, reopened = false) {
  feed.status = status;
  post(feed, { type: 'status', status, reopened });
}

/** The URL without its starting point, and the starting point (null: none, a stream of what comes from now on). */
function split(url) {
  const parsed = new URL(url);
  const start = parsed.searchParams.get('lastEventId');
  parsed.searchParams.delete('lastEventId');
  return { key: parsed.href, start: start == null ? null : Number(start) };
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
      feed.timer = setTimeout(() => { if (feeds.get(feed.key) === feed) open(feed); }, 5000);
    } else {
      setStatus(feed, 'reconnecting');
    }
  });
  source.addEventListener('entitlement', (message) => {
    if (message.lastEventId) feed.lastId = message.lastEventId;
    if (feed.replay) {
      feed.replay.push({ id: Number(message.lastEventId), data: message.data });
      if (feed.replay.length > REPLAY * 2) {
        // Everything after `from` is still held.
        feed.from = feed.replay[feed.replay.length - REPLAY - 1].id;
        feed.replay = feed.replay.slice(-REPLAY);
      }
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
    if (!feed.ports.has(port) || (url && feed.ports.get(port) !== url)) continue;
    feed.ports.delete(port);
    if (feed.ports.size) continue;
    feed.source?.close();
    clearTimeout(feed.timer);
    clearTimeout(feed.flush);
    feeds.delete(feed.key);
  }
}

function join(port, url) {
  const { key: shared, start } = split(url);
  let feed = feeds.get(shared);
  // A tab starting before what this stream still holds (or on a stream that keeps nothing) would miss events: it gets
  // a stream of its own.
  const key = feed && start != null && (!feed.replay || start < feed.from) ? url : shared;
  feed = feeds.get(key);
  const joining = Boolean(feed);
  if (!feed) {
    feed = {
      key, url, ports: new Map(), source: null, status: 'connecting', timer: null, pending: [], flush: null,
      replay: start == null ? null : [], from: start ?? 0, lastId: null,
    };
    feeds.set(key, feed);
    open(feed);
  }
  feed.ports.set(port, url);
  port.postMessage({ type: 'status', url, status: feed.status, reopened: false });
  // What the stream delivered after the tab's starting point before it joined (what is still pending goes to every
  // tab at the next batch).
  if (!joining || !feed.replay) return;
  const delivered = feed.replay.slice(0, feed.replay.length - feed.pending.length).filter((event) => event.id > start);
  if (delivered.length) port.postMessage({ type: 'events', url, data: delivered.map((event) => event.data) });
}

self.addEventListener('connect', (connection) => {
  const port = connection.ports[0];
  port.addEventListener('message', ({ data }) => {
    if (data?.type === 'join') join(port, data.url);
    else if (data?.type === 'leave') leave(port, data.url);
  });
  port.start();
});

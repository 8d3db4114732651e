// The live connection every tab of this console shares (a SharedWorker): one EventSource per stream URL, whatever
// the number of tabs, so a browser's six connections per host are never used up by tabs. Tabs post
// `{type: 'join', url}` and `{type: 'leave'}`; the worker posts `{type: 'status', status, reopened}`,
// `{type: 'events', data: [json…]}` (batched every few ms) and `{type: 'resync', data}`.

const feeds = new Map(); // url → { url, ports: Set, source, status, timer, pending, flush }
const BATCH_MS = 16;

function post(feed, message) {
  for (const port of feed.ports) port.postMessage(message);
}

function setStatus(feed, status, reopened = false) {
  feed.status = status;
  post(feed, { type: 'status', status, reopened });
}

function open(feed) {
  const source = new EventSource(feed.url);
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

function leave(port) {
  for (const feed of feeds.values()) {
    if (!feed.ports.delete(port) || feed.ports.size) continue;
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
      if (!feed) {
        feed = { url: data.url, ports: new Set(), source: null, status: 'connecting', timer: null, pending: [], flush: null };
        feeds.set(data.url, feed);
        open(feed);
      }
      feed.ports.add(port);
      port.postMessage({ type: 'status', status: feed.status, reopened: false });
    } else if (data?.type === 'leave') {
      leave(port);
    }
  });
  port.start();
});

// The live connections: SSE `/api/events/stream`, shared by every tab of this console through a SharedWorker
// (live-worker.js), or held by this tab where SharedWorker is missing. The main stream (every event) drives the
// connection indicator and the pages that re-read on change; a filtered list subscribes to a stream of its own, with
// the server's filter (`q=`) and starting after the newest event it read (`lastEventId=`), so it is sent exactly the
// events it shows. EventSource reconnects by itself and resumes with Last-Event-ID. Arrivals are handed to views in
// batches, on an animation frame at most every 100 ms, so a burst of events costs a few renders a second, not one per
// event. Views subscribe to batches of raw events (lists) or to debounced "something changed" (re-fetch).
import { streamURL } from './api.js';

const changeListeners = new Set();
const statusListeners = new Set();
// The main stream's batch listeners: "something changed" (onChange) and the lists that take every event (onEvents).
const mainListeners = new Set([notifyChange]);
let main = null;
let status = 'connecting';
let paused = false;
// The SharedWorker's port (undefined: not tried yet; null: none, each stream is this tab's own EventSource).
let port;
const streams = new Map(); // url → stream: { url, listeners, queue, frame, lastFlush, onStatus, closed, … }

function setStatus(next) {
  status = next;
  for (const listener of statusListeners) listener({ status, paused });
}

function notifyChange(events) {
  for (const listener of changeListeners) listener(events);
}

/** Hands the stream's queued events to its listeners, in one batch. */
function flush(stream) {
  stream.frame = null;
  stream.lastFlush = performance.now();
  const events = stream.queue;
  stream.queue = [];
  if (!events.length || stream.closed) return;
  for (const listener of stream.listeners) listener(events);
}

// At most one batch per FLUSH_MS, on an animation frame: a burst costs the views ten renders a second, not one per
// event (nor one per frame). A hidden tab has no frames: a timer then.
const FLUSH_MS = 100;

function receive(stream, texts) {
  if (!stream || stream.closed) return;
  for (const text of texts) {
    try {
      stream.queue.push(JSON.parse(text));
    } catch {
      // not an event: skipped
    }
  }
  if (stream.frame || !stream.queue.length) return;
  const wait = Math.max(0, stream.lastFlush + FLUSH_MS - performance.now());
  if (document.hidden) {
    stream.frame = setTimeout(() => flush(stream), Math.max(wait, 250));
  } else if (wait > 0) {
    stream.frame = setTimeout(() => requestAnimationFrame(() => flush(stream)), wait);
  } else {
    stream.frame = requestAnimationFrame(() => flush(stream));
  }
}

/** One tab's own EventSource for `stream`, where SharedWorker is missing. */
function connectDirect(stream) {
  const open = () => {
    if (stream.closed) return;
    let url = stream.url;
    if (stream.lastId != null && new URL(url).searchParams.has('lastEventId')) {
      const resumed = new URL(url);
      resumed.searchParams.set('lastEventId', stream.lastId);
      url = resumed.href;
    }
    const source = new EventSource(url);
    stream.source = source;
    source.addEventListener('open', () => stream.onStatus('live', stream.status !== 'live' && stream.status !== 'connecting'));
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        stream.onStatus('offline');
        stream.retry = setTimeout(open, 5000);
      } else {
        stream.onStatus('reconnecting');
      }
    });
    source.addEventListener('entitlement', (message) => {
      if (message.lastEventId) stream.lastId = message.lastEventId;
      receive(stream, [message.data]);
    });
  };
  open();
}

/** The SharedWorker's port, started once per tab; null where SharedWorker is missing. */
function workerPort() {
  if (port !== undefined) return port;
  port = null;
  if (typeof SharedWorker === 'undefined') return port;
  let worker;
  try {
    worker = new SharedWorker(new URL('./live-worker.js', import.meta.url), { name: 'passconsole-live-streams' });
  } catch {
    return port;
  }
  port = worker.port;
  port.addEventListener('message', ({ data }) => {
    const stream = streams.get(data.url);
    if (!stream) return;
    if (data.type === 'events') receive(stream, data.data);
    else if (data.type === 'status') stream.onStatus(data.status, data.reopened);
  });
  port.start();
  addEventListener('pagehide', () => port.postMessage({ type: 'leave' }));
  return port;
}

/** Opens the stream of `query` (`{q, lastEventId}`); `onStatus(status, reopened)` follows its connection. */
function openStream(query, onStatus) {
  const url = new URL(streamURL(query), location.href).href;
  const existing = streams.get(url);
  if (existing) return existing;
  const stream = { url, listeners: new Set(), queue: [], frame: null, lastFlush: 0, closed: false, status: 'connecting', lastId: null };
  stream.onStatus = (next, reopened = false) => {
    stream.status = next;
    onStatus(next, reopened);
  };
  streams.set(url, stream);
  const worker = workerPort();
  if (worker) worker.postMessage({ type: 'join', url });
  else connectDirect(stream);
  return stream;
}

function closeStream(stream) {
  stream.closed = true;
  streams.delete(stream.url);
  if (stream.source) stream.source.close();
  clearTimeout(stream.retry);
  if (port) port.postMessage({ type: 'leave', url: stream.url });
}

/** Open the main stream (once per tab; once per browser for all the console's tabs where SharedWorker exists). */
export function connect() {
  if (main) return;
  main = openStream({}, (next, reopened) => {
    setStatus(next);
    if (reopened) notifyChange([]);
  });
  main.listeners = mainListeners;
}

/** Every entitlement event as it arrives, in batches (oldest first), at most once per frame. Returns the unsubscribe function. */
export function onEvents(listener) {
  mainListeners.add(listener);
  return () => mainListeners.delete(listener);
}

/**
 * The events matching the server filter `q` stored after the event `after`, as they arrive: `listener(events)` in
 * batches (oldest first, at most once per frame; after a reconnection an event may come again). Returns the
 * unsubscribe function, which closes the stream.
 */
export function subscribe({ q, after }, listener) {
  const stream = openStream({ q, lastEventId: after }, () => {});
  stream.listeners.add(listener);
  return () => {
    stream.listeners.delete(listener);
    if (!stream.listeners.size) closeStream(stream);
  };
}

/**
 * `listener(events)` at most every `delay` ms after events or app changes arrive (the events that arrived since
 * the last call; empty when only app state changed). Returns the unsubscribe function.
 */
export function onChange(listener, delay = 250) {
  let timer = null;
  let pending = [];
  const wrapped = (events) => {
    for (const event of events) pending.push(event);
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      const arrived = pending;
      pending = [];
      listener(arrived);
    }, delay);
  };
  changeListeners.add(wrapped);
  return () => {
    clearTimeout(timer);
    changeListeners.delete(wrapped);
  };
}

/** `{status, paused}` now and on every change. Returns the unsubscribe function. */
export function onStatus(listener) {
  statusListeners.add(listener);
  listener({ status, paused });
  return () => statusListeners.delete(listener);
}

export const isPaused = () => paused;

/** Pause or resume the live lists (the connections stay open; paused lists count what arrives). */
export function setPaused(value) {
  if (paused === value) return;
  paused = value;
  for (const listener of statusListeners) listener({ status, paused });
}

export const togglePause = () => setPaused(!paused);

// The one live connection: SSE `/api/events/stream`, shared by every tab of this console through a SharedWorker
// (live-worker.js), or held by this tab where SharedWorker is missing. EventSource reconnects by itself and resumes
// with Last-Event-ID. Arrivals are handed to views in batches, on an animation frame at most every 100 ms, so a
// burst of events costs a few renders a second, not one per event. Views subscribe to batches of raw events (lists)
// or to debounced "something changed" (re-fetch).
import { streamURL } from './api.js';

const batchListeners = new Set();
const changeListeners = new Set();
const statusListeners = new Set();
let connected = false;
let status = 'connecting';
let paused = false;
let queue = [];
let frame = null;

function setStatus(next) {
  status = next;
  for (const listener of statusListeners) listener({ status, paused });
}

function notifyChange(events) {
  for (const listener of changeListeners) listener(events);
}

/** Hands the queued events to the views, in one batch. */
function flush() {
  frame = null;
  lastFlush = performance.now();
  const events = queue;
  queue = [];
  if (!events.length) return;
  for (const listener of batchListeners) listener(events);
  notifyChange(events);
}

// At most one batch per FLUSH_MS, on an animation frame: a burst costs the views ten renders a second, not one per
// event (nor one per frame). A hidden tab has no frames: a timer then.
const FLUSH_MS = 100;
let lastFlush = 0;

function receive(texts) {
  for (const text of texts) {
    try {
      queue.push(JSON.parse(text));
    } catch {
      // not an event: skipped
    }
  }
  if (frame || !queue.length) return;
  const wait = Math.max(0, lastFlush + FLUSH_MS - performance.now());
  if (document.hidden) {
    frame = setTimeout(flush, Math.max(wait, 250));
  } else if (wait > 0) {
    frame = setTimeout(() => requestAnimationFrame(flush), wait);
  } else {
    frame = requestAnimationFrame(flush);
  }
}

function onStatusMessage(next, reopened) {
  setStatus(next);
  if (reopened) notifyChange([]);
}

/** One tab's own EventSource, where SharedWorker is missing. */
function connectDirect(url) {
  let source = null;
  const open = () => {
    source = new EventSource(url);
    source.addEventListener('open', () => onStatusMessage('live', status !== 'live' && status !== 'connecting'));
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        setStatus('offline');
        setTimeout(open, 5000);
      } else {
        setStatus('reconnecting');
      }
    });
    source.addEventListener('entitlement', (message) => receive([message.data]));
  };
  open();
}

/** Open the stream (once per tab; once per browser for all the console's tabs where SharedWorker exists). */
export function connect() {
  if (connected) return;
  connected = true;
  const url = new URL(streamURL(), location.href).href;
  if (typeof SharedWorker === 'undefined') return connectDirect(url);
  let worker;
  try {
    worker = new SharedWorker(new URL('./live-worker.js', import.meta.url), { name: 'passconsole-live' });
  } catch {
    return connectDirect(url);
  }
  const port = worker.port;
  port.addEventListener('message', ({ data }) => {
    if (data.type === 'events') receive(data.data);
    else if (data.type === 'status') onStatusMessage(data.status, data.reopened);
  });
  port.start();
  port.postMessage({ type: 'join', url });
  addEventListener('pagehide', () => port.postMessage({ type: 'leave' }));
}

/** Entitlement events as they arrive, in batches (oldest first), at most once per frame. Returns the unsubscribe function. */
export function onEvents(listener) {
  batchListeners.add(listener);
  return () => batchListeners.delete(listener);
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

/** Pause or resume the live lists (the connection stays open; paused lists count what arrives). */
export function setPaused(value) {
  if (paused === value) return;
  paused = value;
  for (const listener of statusListeners) listener({ status, paused });
}

export const togglePause = () => setPaused(!paused);

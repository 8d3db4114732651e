// The one live connection: SSE `/api/events/stream`. EventSource reconnects by itself and resumes with
// Last-Event-ID. Views subscribe to raw events (lists) or to debounced "something changed" (re-fetch).
import { streamURL } from './api.js';

const eventListeners = new Set();
const changeListeners = new Set();
const statusListeners = new Set();
let source = null;
let status = 'connecting';
let paused = false;
let retryTimer = null;

function setStatus(next) {
  status = next;
  for (const listener of statusListeners) listener({ status, paused });
}

function notifyChange(event) {
  for (const listener of changeListeners) listener(event);
}

/** Open the stream (once). */
export function connect() {
  if (source) return;
  source = new EventSource(streamURL());
  source.addEventListener('open', () => {
    const wasDown = status !== 'live' && status !== 'connecting';
    setStatus('live');
    if (wasDown) notifyChange(null);
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) {
      // The server refused (e.g. 401) or went away for good: EventSource gives up, so we retry ourselves.
      source.close();
      source = null;
      setStatus('offline');
      clearTimeout(retryTimer);
      retryTimer = setTimeout(connect, 5000);
    } else {
      setStatus('reconnecting');
    }
  });
  source.addEventListener('entitlement', (message) => {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch {
      return;
    }
    for (const listener of eventListeners) listener(event);
    notifyChange(event);
  });
  source.addEventListener('apps', () => notifyChange(null));
}

/** Every entitlement event as it arrives. Returns the unsubscribe function. */
export function onEvent(listener) {
  eventListeners.add(listener);
  return () => eventListeners.delete(listener);
}

/**
 * `listener(events)` at most every `delay` ms after events or app changes arrive (the events that arrived since
 * the last call; empty when only app state changed). Returns the unsubscribe function.
 */
export function onChange(listener, delay = 250) {
  let timer = null;
  let pending = [];
  const wrapped = (event) => {
    if (event) pending.push(event);
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      const events = pending;
      pending = [];
      listener(events);
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

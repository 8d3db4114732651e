// Keeps a filtered event list current: first page (newest first), older pages on demand, and live events, a frame's
// batch at a time. Without a filter, live events come from the one stream of every event and go straight in; with
// one, the list subscribes to a stream of its own with the server's filter, starting after the newest event the page
// read, and shows what arrives: it never asks the server again for new events. Counts follow the arrivals (the total
// from the stream of every event). While paused, arrivals are held and counted for the "N new events" pill.
import { get } from './api.js';
import * as live from './live.js';

const PAGE = 200;
// "Load older" reads a time window (see `windowSeconds`), at most this many events at once.
const WINDOW_LIMIT = 2000;
const BUFFER_LIMIT = 2000;
// Events of the stream of every event that arrive while a page loads, kept to be sorted out once it has loaded.
const EARLY_LIMIT = 10000;
// `before` past any id: asks for the newest page, newest first (the same order as scrolling back).
const NEWEST = Number.MAX_SAFE_INTEGER;

/**
 * `query()`: the full server filter; `direct()`: true when every live event of `candidate` matches without asking the
 * server (otherwise the list subscribes to the server's filter); `follow()`: false when the list shows a moment in the
 * past and takes no new events. Callbacks: `onReset({events, total, matching, hasOlder, error})` (events newest
 * first), `onNew(events)` (oldest first), `onOlder(events, hasOlder, window)` (newest first; `window` `{from, until}`
 * when read by time), `onMeta({total, matching})`, `onPending(count)` while paused. `windowSeconds()`: when it gives a
 * number, "Load older" reads the events within that many seconds before the oldest shown (or, when none is that
 * close, the next span that holds events) instead of a fixed number of rows.
 */
export function createFeed({ query, direct, follow = () => true, candidate = () => true, onReset, onNew, onOlder, onMeta, onPending, windowSeconds = () => null }) {
  let newest = 0;
  let oldest = null;
  let loading = false;
  // Events of the stream of every event that arrived while the page loaded (oldest first).
  let early = [];
  // Every event up to this ID is counted in `meta.total`.
  let counted = 0;
  let buffer = [];
  let overflow = false;
  let meta = { total: 0, matching: 0 };
  let generation = 0;
  // The unsubscribe function of the filtered stream, when the list follows one.
  let stream = null;

  const setMeta = (next) => {
    meta = next;
    onMeta(meta);
  };

  function deliver(events) {
    if (!events.length) return;
    if (live.isPaused()) {
      buffer.push(...events);
      if (buffer.length > BUFFER_LIMIT) {
        buffer = buffer.slice(-BUFFER_LIMIT);
        overflow = true;
      }
      onPending(buffer.length);
    } else {
      onNew(events);
    }
  }

  function unsubscribe() {
    stream?.();
    stream = null;
  }

  /** The history's size and its newest event's ID, read in one go: what the total counts from. */
  async function newestOfAll() {
    const page = await get('/api/events', { before: NEWEST, limit: 1 }, { quiet: true });
    return { total: page.total, id: page.events[0]?.id ?? 0 };
  }

  async function reload() {
    const mine = ++generation;
    unsubscribe();
    loading = true;
    early = [];
    buffer = [];
    overflow = false;
    onPending(0);
    const filtered = !direct();
    try {
      // With a filter, what the page counts from is read first: every event up to `all.id` is then either on the page
      // (or older) or does not match, and the filtered stream starts after it.
      const all = filtered ? await newestOfAll() : null;
      if (mine !== generation) return;
      const page = await get('/api/events', { q: query(), before: NEWEST, limit: PAGE }, { quiet: true });
      if (mine !== generation) return;
      const events = [...page.events].sort((a, b) => b.id - a.id);
      newest = Math.max(events[0]?.id ?? 0, all?.id ?? 0);
      oldest = events.at(-1)?.id ?? null;
      counted = all ? all.id : newest;
      meta = { total: all ? all.total : page.total, matching: page.matching, capped: page.matchingCapped === true };
      loading = false;
      onReset({ events, ...meta, hasOlder: events.length >= PAGE || page.nextCursor != null, error: null });
      // What arrived while the page loaded: counted, and (without a filter) shown when newer than the page.
      const arrived = early;
      early = [];
      take(arrived);
      if (filtered && follow()) stream = live.subscribe({ q: query(), after: newest }, arriveFiltered);
    } catch (error) {
      if (mine === generation) {
        loading = false;
        early = [];
        onReset({ events: [], total: 0, matching: 0, hasOlder: false, error });
      }
    }
  }

  async function older() {
    if (oldest == null) return;
    const mine = generation;
    const window = windowSeconds();
    const page = window
      ? await get('/api/events', { q: query(), before: oldest, window, limit: WINDOW_LIMIT })
      : await get('/api/events', { q: query(), before: oldest, limit: PAGE });
    if (mine !== generation) return;
    const events = [...page.events].sort((a, b) => b.id - a.id);
    if (events.length) oldest = events.at(-1).id;
    onOlder(events, window ? page.nextCursor != null : events.length >= PAGE || page.nextCursor != null, page.window ?? null);
  }

  /** Events of the stream of every event (oldest first): counted in the total; shown when the list has no filter. */
  function take(events) {
    const fresh = events.filter((e) => e.id > counted);
    if (!fresh.length) return;
    counted = fresh.at(-1).id;
    if (!direct()) {
      setMeta({ ...meta, total: meta.total + fresh.length });
      return;
    }
    const matching = follow() ? fresh.filter((e) => e.id > newest && candidate(e)) : [];
    if (matching.length) newest = matching.at(-1).id;
    setMeta({ ...meta, total: meta.total + fresh.length, matching: meta.matching + matching.length });
    deliver(matching);
  }

  /** Events of the filtered stream (oldest first): every one matches; one seen already (a reconnection) is skipped. */
  function arriveFiltered(events) {
    const fresh = events.filter((e) => e.id > newest);
    if (!fresh.length) return;
    newest = fresh.at(-1).id;
    setMeta({ ...meta, matching: meta.matching + fresh.length });
    deliver(fresh);
  }

  // A frame's arrivals at once (oldest first): one delivery, one render.
  const offEvent = live.onEvents((events) => {
    if (!loading) return take(events);
    early.push(...events);
    if (early.length > EARLY_LIMIT) early = early.slice(-EARLY_LIMIT);
  });

  let wasPaused = live.isPaused();
  const offStatus = live.onStatus(({ paused }) => {
    if (wasPaused && !paused) flush();
    wasPaused = paused;
  });

  function flush() {
    const held = buffer;
    buffer = [];
    onPending(0);
    if (overflow) {
      overflow = false;
      reload();
    } else if (held.length) {
      onNew(held);
    }
  }

  return {
    reload,
    older,
    /** Called when rows were dropped from the bottom: older pages start below `id`. */
    trimmedTo(id) { oldest = id; },
    dispose() {
      generation++;
      unsubscribe();
      offEvent();
      offStatus();
    },
  };
}

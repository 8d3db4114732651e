// Keeps a filtered event list current: first page (newest first), older pages on demand, and live events from the
// one SSE stream, a frame's batch at a time. Without a filter, live events go straight in; with one, the server decides what matches (we ask
// for `after=<newest id>`). While paused, arrivals are held and counted for the "N new events" pill.
import { get } from './api.js';
import * as live from './live.js';

const PAGE = 200;
// "Load older" reads a time window (see `windowSeconds`), at most this many events at once.
const WINDOW_LIMIT = 2000;
const BUFFER_LIMIT = 2000;
// `before` past any id: asks for the newest page, newest first (the same order as scrolling back).
const NEWEST = Number.MAX_SAFE_INTEGER;

/**
 * `query()`: the full server filter; `direct`: true when every live event of `candidate` matches without asking the
 * server. Callbacks: `onReset({events, total, matching, hasOlder, error})` (events newest first),
 * `onNew(events)` (oldest first), `onOlder(events, hasOlder, window)` (newest first; `window` `{from, until}` when
 * read by time), `onMeta({total, matching})`, `onPending(count)` while paused. `windowSeconds()`: when it gives a
 * number, "Load older" reads the events within that many seconds before the oldest shown (or, when none is that
 * close, the next span that holds events) instead of a fixed number of rows.
 */
export function createFeed({ query, direct, candidate = () => true, onReset, onNew, onOlder, onMeta, onPending, windowSeconds = () => null }) {
  let newest = 0;
  let oldest = null;
  let loading = false;
  let catchUp = false;
  let buffer = [];
  let overflow = false;
  let meta = { total: 0, matching: 0 };
  let generation = 0;

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

  async function reload() {
    const mine = ++generation;
    loading = true;
    catchUp = false;
    buffer = [];
    overflow = false;
    onPending(0);
    try {
      const page = await get('/api/events', { q: query(), before: NEWEST, limit: PAGE }, { quiet: true });
      if (mine !== generation) return;
      const events = [...page.events].sort((a, b) => b.id - a.id);
      newest = events[0]?.id ?? newest;
      oldest = events.at(-1)?.id ?? null;
      meta = { total: page.total, matching: page.matching, capped: page.matchingCapped === true };
      onReset({ events, ...meta, hasOlder: events.length >= PAGE || page.nextCursor != null, error: null });
    } catch (error) {
      if (mine === generation) onReset({ events: [], total: 0, matching: 0, hasOlder: false, error });
    } finally {
      if (mine === generation) {
        loading = false;
        if (catchUp) fetchNewer();
      }
    }
  }

  async function fetchNewerNow() {
    if (loading) {
      catchUp = true;
      return;
    }
    const mine = generation;
    const found = [];
    let cursor = newest;
    try {
      for (let pages = 0; pages < 10; pages++) {
        const page = await get('/api/events', { q: query(), after: cursor, limit: PAGE }, { quiet: true });
        if (mine !== generation) return;
        found.push(...page.events.filter((e) => e.id > newest));
        setMeta({ total: page.total, matching: page.matching, capped: page.matchingCapped === true });
        if (page.nextCursor == null || !page.events.length) break;
        cursor = page.nextCursor;
      }
    } catch {
      return; // the next event retries; the connection indicator shows trouble
    }
    found.sort((a, b) => a.id - b.id);
    const unique = found.filter((e, i) => i === 0 || e.id !== found[i - 1].id);
    if (unique.length) newest = unique.at(-1).id;
    deliver(unique);
  }
  // At most one fetch per 250 ms while events keep coming (a debounce would wait for the burst to end).
  let fetchTimer = null;
  const fetchNewer = Object.assign(() => {
    if (!fetchTimer) fetchTimer = setTimeout(() => { fetchTimer = null; fetchNewerNow(); }, 250);
  }, { cancel: () => { clearTimeout(fetchTimer); fetchTimer = null; } });

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

  // A frame's arrivals at once (oldest first): one delivery, one render.
  const offEvent = live.onEvents((events) => {
    const fresh = events.filter((e) => e.id > newest);
    if (!fresh.length) return;
    const matching = fresh.filter((e) => candidate(e));
    const others = fresh.length - matching.length;
    if (!matching.length) {
      setMeta({ ...meta, total: meta.total + others });
      return;
    }
    if (loading || !direct()) {
      if (others) setMeta({ ...meta, total: meta.total + others });
      fetchNewer();
      return;
    }
    newest = matching.at(-1).id;
    setMeta({ total: meta.total + fresh.length, matching: meta.matching + matching.length });
    deliver(matching);
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
      fetchNewer.cancel();
      offEvent();
      offStatus();
    },
  };
}

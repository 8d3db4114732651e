// A compact, newest-first table of events that grows live, windowed: every kept event is in memory, but only the
// rows in view (and a few around) are in the DOM, between two spacer rows that keep the scroll height right. New
// events are drawn at most once per animation frame, however many arrive; the view stays where the reader left it
// (it only "follows" when you are already at the top). Rows `tr[data-event-id]`, keyboard selection.
import { h, listNav } from './dom.js';

const MAX_EVENTS = 5000;
const OVERSCAN = 30;
const FALLBACK_ROW_HEIGHT = 26;

/**
 * `columns`: `[{label, cls, cell(event) → node|string}]`. `onSelect(event)` when a row is selected (click, j/k);
 * `onOpen(event)` on click or Enter; `onTrim(oldestId)` when events were dropped from the bottom.
 */
export function createLiveTable({ id, caption, columns, rowClass, onSelect, onOpen, onTrim }) {
  let events = []; // newest first
  const byId = new Map();
  const rendered = new Map(); // id → tr in the DOM now
  let rowHeight = 0;
  let selectedId = null;
  let frame = null;
  // Rows added on top since the last draw: a reader scrolled down keeps seeing the same rows.
  let shift = 0;

  const topSpacer = h('tr.spacer', { 'aria-hidden': 'true' }, h('td', { colspan: String(columns.length) }));
  const bottomSpacer = h('tr.spacer', { 'aria-hidden': 'true' }, h('td', { colspan: String(columns.length) }));
  const tbody = h('tbody', null, topSpacer, bottomSpacer);
  const table = h('table.grid.live-table', { id },
    h('caption.sr-only', null, caption),
    h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.cls }, c.label)))),
    tbody);
  // Scroll position is kept by this code (rows above the view are counted, not measured): no browser anchoring.
  const scroller = h('div.table-scroll', { tabindex: '-1', style: 'overflow-anchor: none' }, table);
  const nav = listNav(() => tbody.querySelectorAll('tr[data-event-id]'), (row) => {
    selectedId = Number(row.dataset.eventId);
    onSelect?.(byId.get(selectedId));
  });

  function row(event) {
    const tr = h('tr', { 'data-event-id': event.id, class: rowClass?.(event) },
      columns.map((c) => h('td', { class: c.cls }, c.cell(event))));
    tr.addEventListener('click', (click) => {
      if (click.target.closest('button, a')) return;
      selectedId = event.id;
      nav.select(tr);
      onOpen?.(byId.get(event.id));
    });
    return tr;
  }

  const spacerHeight = (tr, px) => { tr.firstChild.style.height = `${px}px`; tr.hidden = px === 0; };

  /** Draws the rows in view: reuses those already drawn, makes the new ones, drops the rest. */
  function draw() {
    frame = null;
    const height = rowHeight || FALLBACK_ROW_HEIGHT;
    const view = scroller.clientHeight || 800;
    let top = scroller.scrollTop;
    if (shift && top > 0) top += shift * height;
    shift = 0;
    const first = Math.max(0, Math.floor(top / height) - OVERSCAN);
    const last = Math.min(events.length, first + Math.ceil(view / height) + 2 * OVERSCAN);
    const wanted = events.slice(first, last);
    const keep = new Set(wanted.map((e) => e.id));
    for (const [eventId, tr] of rendered) {
      if (!keep.has(eventId)) {
        tr.remove();
        rendered.delete(eventId);
      }
    }
    // Insert in order before the bottom spacer, moving only the rows that are out of place.
    let cursor = topSpacer.nextSibling;
    for (const event of wanted) {
      let tr = rendered.get(event.id);
      if (!tr) {
        tr = row(event);
        rendered.set(event.id, tr);
        if (event.id === selectedId) {
          tr.classList.add('selected');
          tr.setAttribute('aria-selected', 'true');
        }
      }
      if (tr !== cursor) tbody.insertBefore(tr, cursor);
      else cursor = cursor.nextSibling;
    }
    spacerHeight(topSpacer, first * height);
    spacerHeight(bottomSpacer, (events.length - last) * height);
    if (scroller.scrollTop !== top) scroller.scrollTop = top;
    if (!rowHeight && wanted.length) {
      const measured = rendered.get(wanted[0].id).getBoundingClientRect().height;
      if (measured > 0) {
        rowHeight = measured;
        schedule();
      }
    }
  }

  // A hidden tab gets no frames: it draws on a slow timer instead, so it is current when shown.
  function schedule() {
    if (frame) return;
    frame = document.hidden ? { timer: setTimeout(draw, 250) } : { id: requestAnimationFrame(draw) };
  }

  /** Draws now (a selection, a reset: what follows reads the DOM). */
  function drawNow() {
    if (frame?.timer) clearTimeout(frame.timer);
    else if (frame) cancelAnimationFrame(frame.id);
    draw();
  }

  scroller.addEventListener('scroll', schedule, { passive: true });

  function trim() {
    if (events.length <= MAX_EVENTS) return;
    for (const event of events.splice(MAX_EVENTS)) byId.delete(event.id);
    onTrim?.(events.at(-1).id);
  }

  return {
    el: scroller,
    table,
    nav,
    get size() { return byId.size; },
    /** Rows in the DOM now (at most the view and a margin). */
    get renderedCount() { return rendered.size; },
    events: () => [...events],
    get: (eventId) => byId.get(Number(eventId)),
    /** Replace every row (events newest first). */
    reset(next) {
      events = [...next];
      shift = 0;
      byId.clear();
      for (const event of events) byId.set(event.id, event);
      for (const tr of rendered.values()) tr.remove();
      rendered.clear();
      scroller.scrollTop = 0;
      trim();
      drawNow();
    },
    /** New events (oldest first) go on top; the view stays where the reader left it. Drawn on the next frame. */
    addNewer(batch) {
      const fresh = batch.filter((e) => !byId.has(e.id));
      if (!fresh.length) return;
      for (const event of fresh) byId.set(event.id, event);
      events = [...fresh].reverse().concat(events);
      shift += fresh.length;
      trim();
      schedule();
    },
    /** Older events (newest first) go at the bottom. */
    addOlder(batch) {
      const older = batch.filter((e) => !byId.has(e.id));
      for (const event of older) byId.set(event.id, event);
      events = events.concat(older);
      schedule();
    },
    /** Select the row of an event id (scrolled into view when kept but not drawn); false when it is not kept. */
    select(eventId, options) {
      const index = events.findIndex((e) => e.id === Number(eventId));
      if (index < 0) return false;
      selectedId = Number(eventId);
      if (!rendered.has(selectedId)) {
        scroller.scrollTop = Math.max(0, index * (rowHeight || FALLBACK_ROW_HEIGHT) - scroller.clientHeight / 2);
        drawNow();
      }
      const tr = rendered.get(selectedId);
      if (tr) nav.select(tr, options);
      return Boolean(tr);
    },
  };
}

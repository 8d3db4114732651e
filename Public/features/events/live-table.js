// A compact, newest-first table of events that grows live: rows `tr[data-event-id]`, keyboard selection, scroll
// kept in place when rows arrive above (so the list only "follows" when you are already at the top).
import { h, listNav } from '../../lib/dom.js';

const MAX_ROWS = 3000;
const anchoring = typeof CSS !== 'undefined' && CSS.supports?.('overflow-anchor: auto');

/**
 * `columns`: `[{label, cls, cell(event) → node|string}]`. `onSelect(event)` when a row is selected (click, j/k);
 * `onOpen(event)` on click or Enter; `onTrim(oldestId)` when rows were dropped from the bottom.
 */
export function createLiveTable({ id, caption, columns, rowClass, onSelect, onOpen, onTrim }) {
  const byId = new Map();
  const tbody = h('tbody');
  const table = h('table.grid.live-table', { id },
    h('caption.sr-only', null, caption),
    h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.cls }, c.label)))),
    tbody);
  const scroller = h('div.table-scroll', { tabindex: '-1' }, table);
  const nav = listNav(() => tbody.rows, (row) => onSelect?.(byId.get(Number(row.dataset.eventId))));

  function row(event) {
    const tr = h('tr', { 'data-event-id': event.id, class: rowClass?.(event) },
      columns.map((c) => h('td', { class: c.cls }, c.cell(event))));
    tr.addEventListener('click', (click) => {
      if (click.target.closest('button, a')) return;
      nav.select(tr);
      onOpen?.(byId.get(event.id));
    });
    byId.set(event.id, event);
    return tr;
  }

  function trim() {
    let dropped = false;
    while (tbody.rows.length > MAX_ROWS) {
      const last = tbody.rows[tbody.rows.length - 1];
      byId.delete(Number(last.dataset.eventId));
      last.remove();
      dropped = true;
    }
    if (dropped) onTrim?.(Number(tbody.rows[tbody.rows.length - 1].dataset.eventId));
  }

  return {
    el: scroller,
    table,
    nav,
    get size() { return byId.size; },
    events: () => [...byId.values()],
    get: (eventId) => byId.get(Number(eventId)),
    /** Replace every row (events newest first). */
    reset(events) {
      byId.clear();
      tbody.replaceChildren(...events.map(row));
      scroller.scrollTop = 0;
    },
    /** New events (oldest first) go on top; the view stays where the reader left it. */
    addNewer(events) {
      const fresh = events.filter((e) => !byId.has(e.id));
      if (!fresh.length) return;
      const before = scroller.scrollHeight;
      const keep = scroller.scrollTop > 0 && !anchoring;
      const fragment = document.createDocumentFragment();
      for (const event of [...fresh].reverse()) fragment.append(row(event));
      tbody.prepend(fragment);
      if (keep) scroller.scrollTop += scroller.scrollHeight - before;
      trim();
    },
    /** Older events (newest first) go at the bottom. */
    addOlder(events) {
      tbody.append(...events.filter((e) => !byId.has(e.id)).map(row));
    },
    /** Select the row of an event id without scrolling the page around; false when it is not loaded. */
    select(eventId, options) {
      const tr = tbody.querySelector(`tr[data-event-id="${Number(eventId)}"]`);
      if (tr) nav.select(tr, options);
      return Boolean(tr);
    },
  };
}

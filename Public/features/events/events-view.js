// Events: three panes (facets · newest-first table · inspector), one filter kept in the URL, live rows from the
// stream, pause with an "N new events" pill, and exports of exactly what the filter shows.
import { h, fill, badge, timeEl, debounce, emptyState, code } from '../../lib/dom.js';
import { filterBar, addTerm, removeTerm } from '../../lib/filter.js';
import { KINDS, kindLabel, plural, dateTime } from '../../lib/format.js';
import { get } from '../../lib/api.js';
import { saveExport, revealToggle } from '../../lib/export.js';
import * as live from '../../lib/live.js';
import { createFeed } from '../../lib/event-feed.js';
import { createLiveTable } from '../../lib/live-table.js';
import { eventInspector } from './event-inspector.js';
import { renderFacets } from './facets.js';
import { savedFilterBar } from './saved-filters.js';
import { appLabel, loadAppNames } from '../../lib/apps.js';
import { deviceCell, timeControls } from '../../lib/time-controls.js';

export function mount(root, route, ctx) {
  let query = route.params.q ?? '';
  let selectedId = route.params.sel ? Number(route.params.sel) : null;
  // Jump-to-time: the list shows the events before this moment (ISO), live updates off; null follows now.
  let at = route.params.at ?? null;
  let meta = { total: 0, matching: 0 };
  let loadError = null;

  const go = (q, sel, replace) => ctx.navigate('events', [], { q, sel, at }, { replace });
  const jumpTo = (iso) => ctx.navigate('events', [], { q: query, at: iso }, { replace: false });
  const feedQuery = () => (at ? `${query} until:${at}`.trim() : query);
  const narrow = (key, value) => go(addTerm(query, key, value), null, false);
  const term = (key, value, label) => (value
    ? h('button.term', { type: 'button', title: `Show only ${label} ${value}`, onclick: () => narrow(key, value) }, value)
    : h('span.muted', { title: `No ${label} known for this event` }, '—'));

  const bar = filterBar({
    value: query, onChange: (q) => go(q, null, true),
    placeholder: 'e.g. programmer:REF30 mvpd:Cablevision status:4xx',
    presets: [['✗ Errors only', 'event', 'error'], ['HTTP failures', 'status', 'error'], ['Last 15 min', 'since', '-15m']],
  });
  const table = createLiveTable({
    id: 'events-table', caption: 'Events, newest first',
    columns: [
      { label: 'Time', cls: 'c-time', cell: (e) => timeEl(e.event?.timestamp) },
      { label: 'App', cls: 'c-app', cell: (e) => h('span', { title: `${e.event?.app?.bundleID} · team ${e.event?.app?.teamID} · ${e.event?.app?.platform}` }, appLabel(e.event?.app?.bundleID)) },
      { label: 'Programmer', cls: 'c-term', cell: (e) => term('programmer', e.event?.requestorID, 'Programmer') },
      { label: 'MVPD', cls: 'c-term', cell: (e) => term('mvpd', e.event?.mvpdID, 'MVPD') },
      { label: 'Kind', cls: 'c-kind', cell: (e) => badge(KINDS[e.kind]?.icon ?? '•', kindLabel(e.kind), `kind kind-${e.kind}`) },
      { label: 'Device', cls: 'c-dev', cell: (e) => deviceCell(e.event?.deviceID, narrow) },
      { label: 'Summary', cls: 'c-summary', cell: (e) => h('span', { title: e.summary }, e.summary) },
    ],
    rowClass: (e) => (e.kind === 'error' || (e.http && (e.http.status == null || e.http.status >= 400)) ? 'row-error' : null),
    onSelect: (e) => { if (!inspector.hidden) show(e); },
    onOpen: (e) => show(e),
    onTrim: (id) => feed.trimmedTo(id),
  });

  const time = timeControls({ onQuery: (q) => go(q, null, false), onJump: jumpTo });
  time.sync(query, at);
  const saved = savedFilterBar({ current: () => query, apply: (q) => go(q, null, false) });
  const pauseButton = h('button', { type: 'button', 'data-action': 'pause', onclick: () => live.togglePause() });
  const pill = h('button.pill', { type: 'button', id: 'new-events-pill', hidden: true, title: 'Resume and show them', onclick: () => live.setPaused(false) });
  const reveal = revealToggle('export-reveal-personal');
  const exportButton = (format, label) => h('button', {
    type: 'button', 'data-action': `export-${format}`, title: `Download the events the filter shows, as ${label} (personal data redacted unless ticked)`,
    onclick: () => saveExport('/api/events/export', { format, q: query }, `passconsole-events.${format}`, { revealPersonal: reveal.checked }),
  }, `⤓ ${label}`);
  const countLine = h('span.count-line', { role: 'status' });
  const message = h('div.table-message');
  const older = h('button.load-older', { type: 'button', 'data-action': 'load-older', hidden: true, onclick: () => feed.older() });
  const olderLabel = () => { older.textContent = `Load the ${time.windowLabel()} before these events`; };
  time.el.querySelector('#older-window').addEventListener('change', olderLabel);
  olderLabel();
  const olderNote = h('p.muted.small.older-note', { role: 'status', id: 'older-note' });
  const facets = h('aside.pane.facets', { 'aria-label': 'Narrow down' });
  const inspector = h('aside.pane.inspector', { 'aria-label': 'Event details', hidden: true });
  const panes = h('div.three-pane', null, facets, h('div.pane.center', null, message, table.el, olderNote, older), inspector);

  fill(root,
    h('div.view-head', null, h('h1', null, 'Events'), bar.el, time.el, saved.el,
      h('div.toolbar', null, pauseButton, pill, countLine, h('span.spacer'), exportButton('ndjson', 'NDJSON'), exportButton('csv', 'CSV'), reveal.el)),
    panes);

  // At most every 300 ms, also while events keep coming (a burst must not redraw the facets per frame).
  let facetsTimer = null;
  const refreshFacets = Object.assign(() => {
    if (facetsTimer) return;
    facetsTimer = setTimeout(() => {
      facetsTimer = null;
      renderFacets(facets, table.events(), query, (key, value, on) =>
        go(on ? addTerm(query, key, value) : removeTerm(query, `${key}:${value}`), null, false));
    }, 300);
  }, { cancel: () => { clearTimeout(facetsTimer); facetsTimer = null; } });

  function paint() {
    bar.setCounts(loadError ? null : meta);
    countLine.textContent = loadError
      ? `The filter was refused · ${meta.total.toLocaleString()} in total`
      : query
      ? `${plural(table.size, 'event')} listed · ${meta.matching.toLocaleString()}${meta.capped ? '+' : ''} match · ${meta.total.toLocaleString()} in total`
      : `${plural(table.size, 'event')} listed · ${meta.total.toLocaleString()} in total`;
    message.hidden = table.size > 0;
    table.el.hidden = table.size === 0;
    if (table.size > 0) return;
    const url = location.origin;
    if (loadError) fill(message, emptyState('Could not load events.', loadError.message, loadError.detail ? ` ${loadError.detail}` : ''));
    else if (meta.total === 0) fill(message, emptyState('No events yet: no app has reported.',
      'Start a demo app on the ', h('a', { href: '#/flows' }, 'Flows page'), ', or run ', code(`passconsole flow --report-to ${url}`), '.'));
    else fill(message, emptyState(`No events match the filter: ${plural(meta.total, 'event')} are hidden by it.`,
      'Check the terms above, or ', h('button.linkish', { type: 'button', onclick: () => go('', null, false) }, 'clear the filter'), '.'));
  }

  function show(event) {
    if (!event) return;
    inspector.hidden = false;
    panes.classList.add('inspecting');
    fill(inspector, eventInspector(event, { onTerm: narrow, onClose: close }));
    if (selectedId !== event.id) {
      selectedId = event.id;
      go(query, event.id, true);
    }
  }

  function close() {
    inspector.hidden = true;
    panes.classList.remove('inspecting');
    selectedId = null;
    go(query, null, true);
  }

  async function showSelected() {
    if (!selectedId) return;
    if (table.select(selectedId, { silent: true })) return show(table.get(selectedId));
    const page = await get('/api/events', { before: selectedId + 1, limit: 1 }, { quiet: true }).catch(() => null);
    const event = page?.events?.find((e) => e.id === selectedId);
    if (event) show(event);
  }

  const feed = createFeed({
    query: feedQuery,
    direct: () => !query && !at,
    // A jump to a moment shows the events before it: nothing new joins the list.
    follow: () => !at,
    windowSeconds: () => time.windowSeconds(),
    onReset: ({ events, total, matching, capped, hasOlder, error }) => {
      loadError = error;
      olderNote.textContent = '';
      // A refused filter says nothing about the history's size: keep the last counts.
      if (!error) meta = { total, matching, capped };
      table.reset(events);
      older.hidden = !hasOlder;
      paint();
      refreshFacets();
      showSelected();
    },
    onNew: (events) => { table.addNewer(events); paint(); refreshFacets(); },
    onOlder: (events, hasOlder, window) => {
      table.addOlder(events);
      older.hidden = !hasOlder;
      olderNote.textContent = window
        ? `Loaded ${plural(events.length, 'event')} from ${dateTime(window.from)} to ${dateTime(window.until)}${hasOlder ? '' : ' — the oldest that match'}.`
        : '';
      paint();
      refreshFacets();
    },
    onMeta: (next) => { meta = next; paint(); },
    onPending: (n) => {
      pill.textContent = `${plural(n, 'new event')} · show`;
      // Only when something waits: a paused page with nothing new has nothing to show.
      pill.hidden = n === 0;
    },
  });

  const offStatus = live.onStatus(({ paused }) => {
    pauseButton.textContent = paused ? '▶ Resume live' : '❚❚ Pause';
    pauseButton.setAttribute('aria-pressed', String(paused));
    pauseButton.title = paused ? 'Resume: show the events that arrived while paused (p)' : 'Stop adding rows while you read (p)';
    if (!paused) pill.hidden = true;
  });
  pill.hidden = true;
  loadAppNames().finally(() => feed.reload());

  return {
    update(next) {
      const q = next.params.q ?? '';
      const sel = next.params.sel ? Number(next.params.sel) : null;
      const nextAt = next.params.at ?? null;
      if (q !== query || nextAt !== at) {
        query = q;
        at = nextAt;
        bar.setValue(q);
        time.sync(q, at);
        saved.refresh();
        // A new filter may hide the open event: the pane follows the address, which names none after a filter change.
        if (!sel) close();
        selectedId = sel;
        feed.reload();
      } else if (sel !== selectedId) {
        selectedId = sel;
        if (sel) showSelected();
        else close();
      }
    },
    key(key) {
      if (key === 'j') table.nav.move(1);
      else if (key === 'k') table.nav.move(-1);
      else if (key === 'Enter') show(table.get(table.nav.current()?.dataset.eventId));
      else if (key === 'Escape' && !inspector.hidden) close();
      else return false;
      return true;
    },
    unmount() {
      feed.dispose();
      offStatus();
      refreshFacets.cancel();
    },
  };
}

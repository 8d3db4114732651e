// Network: every HTTP exchange between the SDK and the backend, newest first, with the request and response in a
// detail pane and a HAR export of what the filter shows.
import { h, fill, timeEl, debounce, emptyState } from '../../lib/dom.js';
import { filterBar, addTerm } from '../../lib/filter.js';
import { duration, plural } from '../../lib/format.js';
import { get } from '../../lib/api.js';
import { saveExport, revealToggle } from '../../lib/export.js';
import * as live from '../../lib/live.js';
import { hashFor } from '../../lib/route.js';
import { createFeed } from '../../lib/event-feed.js';
import { createLiveTable } from '../../lib/live-table.js';
import { exchangeDetail, exchangeOf, statusBadge } from '../../lib/exchange-detail.js';
import { appLabel, loadAppNames } from '../../lib/apps.js';
import { deviceCell, timeControls } from '../../lib/time-controls.js';
import { proxyPanel } from './proxy-panel.js';

const BASE = 'event:httpExchange';

function shortURL(url) {
  try {
    const u = new URL(url);
    return { path: u.pathname + (u.search ? '?…' : ''), host: u.host };
  } catch {
    return { path: url, host: '' };
  }
}

export function mount(root, route, ctx) {
  let query = route.params.q ?? '';
  let selectedId = route.params.sel ? Number(route.params.sel) : null;
  let allExchanges = 0;
  let matching = 0;
  let loadError = null;
  const go = (q, sel, replace) => ctx.navigate('network', [], { q, sel }, { replace });
  const fullQuery = () => `${BASE} ${query}`.trim();

  const bar = filterBar({
    value: query, onChange: (q) => go(q, null, true), placeholder: 'e.g. status:4xx programmer:REF30 config',
    presets: [['✗ Failed or 4xx/5xx', 'status', 'error'], ['4xx', 'status', '4xx'], ['5xx', 'status', '5xx']],
  });
  const table = createLiveTable({
    id: 'network-table', caption: 'HTTP exchanges, newest first',
    columns: [
      { label: 'Time', cls: 'c-time', cell: (e) => timeEl(e.event?.timestamp) },
      { label: 'Method', cls: 'c-method', cell: (e) => (e.http ?? exchangeOf(e) ?? {}).method ?? '—' },
      { label: 'URL', cls: 'c-url', cell: (e) => { const url = (e.http ?? exchangeOf(e) ?? {}).url ?? ''; const s = shortURL(url); return h('span', { title: url }, s.path); } },
      { label: 'Status', cls: 'c-status', cell: (e) => statusBadge(e) },
      { label: 'Duration', cls: 'c-num', cell: (e) => duration((e.http ?? exchangeOf(e) ?? {}).durationMs) },
      { label: 'Programmer', cls: 'c-term', cell: (e) => h('span', { title: `${e.event?.app?.bundleID ?? ''} · ${e.event?.mvpdID ?? 'no MVPD'}` }, e.event?.requestorID ?? '—') },
      { label: 'App', cls: 'c-app', cell: (e) => h('span', { title: e.event?.app?.bundleID ?? '' }, appLabel(e.event?.app?.bundleID)) },
      { label: 'Device', cls: 'c-dev', cell: (e) => deviceCell(e.event?.deviceID, (key, value) => go(addTerm(query, key, value), null, false)) },
    ],
    rowClass: (e) => { const x = e.http ?? exchangeOf(e) ?? {}; return x.status == null || x.status >= 400 ? 'row-error' : null; },
    onSelect: (e) => { if (!detail.hidden) show(e); },
    onOpen: (e) => show(e),
    onTrim: (id) => feed.trimmedTo(id),
  });
  const pill = h('button.pill', { type: 'button', id: 'new-events-pill', hidden: true, onclick: () => live.setPaused(false) }, '0 new exchanges · show');
  const pauseButton = h('button', { type: 'button', 'data-action': 'pause', onclick: () => live.togglePause() });
  const reveal = revealToggle('har-reveal-personal');
  const har = h('button', {
    type: 'button', 'data-action': 'export-har', title: 'Download the exchanges the filter shows as a HAR 1.2 file (secrets stay redacted; personal data too unless ticked)',
    onclick: () => saveExport('/api/network/har', { q: query }, 'passconsole.har', { revealPersonal: reveal.checked }),
  }, '⤓ Export HAR');
  // The time range writes since:/until: into the filter, as on Events (no jump-to-time here).
  const time = timeControls({ onQuery: (q) => go(q, null, false) });
  time.sync(query, null);
  const countLine = h('span.count-line', { role: 'status' });
  const message = h('div.table-message');
  const older = h('button.load-older', { type: 'button', 'data-action': 'load-older', hidden: true, onclick: () => feed.older() }, 'Load the hour before these exchanges');
  const detail = h('aside.pane.inspector', { 'aria-label': 'Exchange details', hidden: true });
  fill(root,
    h('div.view-head', null, h('h1', null, 'Network'), bar.el, time.el,
      h('div.toolbar', null, pauseButton, pill, countLine, h('span.spacer'), har, reveal.el), proxyPanel()),
    h('div.two-pane', null, h('div.pane.center', null, message, table.el, older), detail));

  const countAll = debounce(async () => {
    const page = await get('/api/events', { q: BASE, limit: 1 }, { quiet: true }).catch(() => null);
    if (page) allExchanges = page.matching;
    paint();
  }, 500);

  function paint() {
    bar.setCounts({ total: allExchanges, matching });
    countLine.textContent = `${plural(table.size, 'exchange')} listed · ${matching.toLocaleString()} match`;
    message.hidden = table.size > 0;
    table.el.hidden = table.size === 0;
    if (table.size > 0) return;
    if (loadError) fill(message, emptyState('Could not load the exchanges.', loadError.message));
    else if (!query) fill(message, emptyState('No HTTP exchanges yet: no app has talked to the backend.',
      'Start a demo app on the ', h('a', { href: '#/flows' }, 'Flows page'), ' and press “Get authentication”.'));
    else fill(message, emptyState('No exchanges match the filter.', 'Every exchange is hidden by it: ',
      h('button.linkish', { type: 'button', onclick: () => go('', null, false) }, 'clear the filter'), '.'));
  }

  function show(event) {
    const exchange = exchangeOf(event);
    if (!event || !exchange) return;
    detail.hidden = false;
    const e = event.event;
    fill(detail,
      h('div.pane-head', null, h('h2', null, `${exchange.method} · ${shortURL(exchange.url).path}`),
        h('button.ghost', { type: 'button', 'data-action': 'close-detail', title: 'Close (Esc)', onclick: close }, '×')),
      h('p.small', null, `${e.app?.bundleID ?? ''} · ${e.requestorID ?? 'no Programmer yet'}${e.mvpdID ? ` · ${e.mvpdID}` : ''} · `,
        h('a', { href: hashFor('events', [], { q: `session:${e.sessionID}`, sel: event.id }) }, 'see it among the session’s events'),
        ' · ', h('button.linkish', { type: 'button', onclick: () => go(addTerm(query, 'session', e.sessionID), null, false) }, 'only this session')),
      exchangeDetail(exchange));
    if (selectedId !== event.id) {
      selectedId = event.id;
      go(query, event.id, true);
    }
  }

  function close() {
    detail.hidden = true;
    selectedId = null;
    go(query, null, true);
  }

  const feed = createFeed({
    query: fullQuery,
    direct: () => !query,
    candidate: (e) => e.kind === 'httpExchange',
    // "Load older" reads the hour before the oldest exchange shown (or the next hour that holds exchanges).
    windowSeconds: () => 3600,
    onReset: ({ events, matching: m, hasOlder, error }) => {
      loadError = error;
      matching = m;
      table.reset(events);
      older.hidden = !hasOlder;
      if (selectedId && table.select(selectedId, { silent: true })) show(table.get(selectedId));
      countAll();
      paint();
    },
    onNew: (events) => { table.addNewer(events); countAll(); paint(); },
    onOlder: (events, hasOlder) => { table.addOlder(events); older.hidden = !hasOlder; paint(); },
    onMeta: (next) => { matching = next.matching; paint(); },
    onPending: (n) => {
      pill.textContent = `${plural(n, 'new exchange')} · show`;
      // Only when something waits: a paused page with nothing new has nothing to show.
      pill.hidden = n === 0;
    },
  });
  const offStatus = live.onStatus(({ paused }) => {
    pauseButton.textContent = paused ? '▶ Resume live' : '❚❚ Pause';
    pauseButton.setAttribute('aria-pressed', String(paused));
    if (!paused) pill.hidden = true;
  });
  loadAppNames().finally(() => feed.reload());

  return {
    update(next) {
      const q = next.params.q ?? '';
      const sel = next.params.sel ? Number(next.params.sel) : null;
      if (q !== query) {
        query = q;
        bar.setValue(q);
        time.sync(q, null);
        // A new filter may hide the open exchange: the pane follows the address, which names none after a filter change.
        if (!sel) detail.hidden = true;
        selectedId = sel;
        feed.reload();
      } else if (sel !== selectedId) {
        selectedId = sel;
        if (sel && table.select(sel, { silent: true })) show(table.get(sel));
        else detail.hidden = true;
      }
    },
    key(key) {
      if (key === 'j') table.nav.move(1);
      else if (key === 'k') table.nav.move(-1);
      else if (key === 'Enter') show(table.get(table.nav.current()?.dataset.eventId));
      else if (key === 'Escape' && !detail.hidden) close();
      else return false;
      return true;
    },
    unmount() { feed.dispose(); offStatus(); countAll.cancel(); },
  };
}

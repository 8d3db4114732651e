// Sessions: every app run the console has heard from, found by what a ticket says (username, user ID as the Tokens
// page shows it, tracking hash, device, app, Programmer, MVPD, visitor ID), with each one's outcome; one session's
// health, flow and timeline beside the list.
import { h, fill, timeEl, emptyState, code, debounce, listNav, refresher, badge } from '../../lib/dom.js';
import { get } from '../../lib/api.js';
import { shortID } from '../../lib/format.js';
import { appLabel, bundleTail } from '../../lib/apps.js';
import * as live from '../../lib/live.js';
import { renderSession } from './session-detail.js';

// Columns: header, class, the cell, and the order a first click sorts in. The server sorts (every matching session,
// GET /api/sessions?sort=&order=), so the id is its sort key.
const COLUMNS = [
  { id: 'lastSeen', label: 'Last seen', cls: 'c-time', first: 'desc', cell: (s) => timeEl(s.lastSeen) },
  { id: 'app', label: 'App', cls: 'c-app', first: 'asc', cell: (s) => appCell(s) },
  { id: 'programmer', label: 'Programmer', cls: 'c-term', first: 'asc',
    // With a session open the list narrows: the MVPD joins the Programmer's cell (its own column hides).
    cell: (s) => h('span', null, s.requestorID ?? h('span.muted', null, '—'), h('span.match-line.when-narrow', null, s.mvpdID ?? '')) },
  { id: 'mvpd', label: 'MVPD', cls: 'c-term c-wide-only', first: 'asc', cell: (s) => s.mvpdID ?? h('span.muted', null, '—') },
  { id: 'user', label: 'User', cls: 'c-user', first: 'asc', cell: (s) => userCell(s) },
  { id: 'outcome', label: 'Outcome', cls: 'c-outcome c-wide-only', first: 'asc', cell: (s) => outcomeBadge(s) },
  { id: 'events', label: 'Events', cls: 'c-num c-wide-only', first: 'desc', cell: (s) => String(s.eventCount) },
];
const PAGE = 200;
const MAX_PAGE = 1000;

/** The sort a URL names (`sort=events:desc`), the default (`lastSeen:desc`) for none or one the list does not have. */
function readSort(param) {
  const [id, dir] = (param ?? '').split(':');
  const column = COLUMNS.find((c) => c.id === id);
  if (!column) return ['lastSeen', 'desc'];
  return [id, dir === 'asc' || dir === 'desc' ? dir : column.first];
}

const OUTCOME_ICONS = { signedIn: '✓', denied: '✗', signedOut: '○', stuck: '⚠', error: '✗', inProgress: '…', started: '•' };
const outcomeBadge = (s) => badge(OUTCOME_ICONS[s.outcome] ?? '•', s.outcomeLabel ?? s.outcome ?? '—', `outcome outcome-${s.outcome}`);

function appCell(s) {
  return h('span', { title: `${s.bundleID} · team ${s.teamID} · device ${s.deviceID}` },
    h('span.app-name', null, appLabel(s.bundleID, s.appName)), h('span.muted.small.client-kind', { title: 'Which protocol the client speaks' }, ` ${s.clientLabel || (s.platform === 'tvos' ? 'tvOS' : 'iOS')}`),
    h('span.match-line.when-narrow', null, outcomeBadge(s)),
    s.appName ? h('span.match-line', null, bundleTail(s.bundleID)) : null,
    (s.matches ?? []).map((m) => h('span.match-line', { 'data-field': m.field },
      `${m.label}: `, m.before, h('mark.hit', null, m.matched), m.after)));
}

function userCell(s) {
  // The visitor ID the app set (setOptions) names the person to analytics: shown under the user.
  const visitors = (s.visitorIDs ?? []).length
    ? h('span.match-line', { 'data-field': 'visitorIDs', title: 'Visitor ID (AP-Visitor-Identifier)' }, `visitor ${s.visitorIDs.join(', ')}`) : null;
  if (!s.userID && !s.username) return h('span', null, h('span.muted', null, '—'), visitors);
  return h('span', { title: s.userID ? `User ID ${s.userID}` : '' }, s.username ?? shortID(s.userID),
    s.username && s.userID ? h('span.match-line', null, shortID(s.userID)) : null, visitors);
}

export function mount(root, route, ctx) {
  let query = route.params.q ?? '';
  let openID = route.parts[0] ?? null;
  let [sortID, sortDir] = readSort(route.params.sort);
  let sessions = [];
  let nextCursor = null;
  let total = 0;
  let waitingTimer = null;
  const search = h('input', {
    id: 'session-search', type: 'search', value: query, autocomplete: 'off', spellcheck: 'false',
    placeholder: 'Username, user ID, tracking hash, device, app, Programmer, MVPD or visitor ID', 'aria-label': 'Find a customer’s sessions',
  });
  const tbody = h('tbody');
  const headRow = h('tr');
  const list = h('div.table-scroll', null, h('table.grid.live-table', { id: 'sessions-table' },
    h('caption.sr-only', null, 'Sessions'), h('thead', null, headRow), tbody));
  const message = h('div.table-message');
  const countLine = h('span.count-line', { role: 'status', id: 'sessions-count' });
  const more = h('button.load-older', { type: 'button', 'data-action': 'more-sessions', hidden: true, onclick: () => loadMore() }, 'Load more');
  const detail = h('div.pane.inspector.session-detail', { 'aria-label': 'Session details', hidden: true });
  const nav = listNav(() => tbody.rows);
  const panes = h('div.two-pane.sessions', null, h('div.pane.center', null, message, list, more), detail);
  fill(root,
    h('div.view-head', null, h('h1', null, 'Sessions'),
      h('div.filter-row', null, h('label.filter-label', { for: 'session-search' }, 'Find'), search, countLine),
      h('p.muted.small', null, 'A session is one run of one app (from start to stop). Every word must start a username, a user ID (as the Tokens page shows it, “DAC9E095…” works), a tracking hash, a device, session or visitor ID, an app, a Programmer or an MVPD, in any case. Click a column to sort all of them.')),
    panes);

  const go = (id, replace) => ctx.navigate('sessions', id ? [id] : [], { q: query, sort: sortID === 'lastSeen' && sortDir === 'desc' ? null : `${sortID}:${sortDir}` }, { replace });
  search.addEventListener('input', debounce(() => {
    query = search.value.trim();
    sessions = [];
    go(openID, true);
    loadList();
  }, 250));
  search.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') nav.move(1);
  });

  function paintHead() {
    fill(headRow, COLUMNS.map((c) => {
      const sorted = c.id === sortID;
      return h('th', { scope: 'col', class: c.cls, 'data-sort': c.id, 'aria-sort': sorted ? (sortDir === 'asc' ? 'ascending' : 'descending') : 'none' },
        h('button.sort', { type: 'button', title: `Sort by ${c.label.toLowerCase()}`, onclick: () => sortBy(c.id) },
          c.label, sorted ? (sortDir === 'asc' ? ' ▲' : ' ▼') : ''));
    }));
  }

  function sortBy(id) {
    if (id === sortID) sortDir = sortDir === 'asc' ? 'desc' : 'asc';
    else [sortID, sortDir] = [id, COLUMNS.find((c) => c.id === id)?.first ?? 'asc'];
    go(openID, true);
    sessions = [];
    loadList();
  }

  // The rows in the server's order (it sorted every matching session, not just these).
  function paintRows() {
    paintHead();
    tbody.replaceChildren(...sessions.map((s) => {
      const tr = h('tr', { 'data-session-id': s.id, 'data-outcome': s.outcome, class: s.id === openID ? 'selected' : null, 'aria-selected': s.id === openID ? 'true' : null, title: `Session ${s.id}` },
        COLUMNS.map((c) => h('td', { class: c.cls, 'data-col': c.id }, c.cell(s))));
      tr.addEventListener('click', () => go(s.id, false));
      return tr;
    }));
    if (openID) nav.select(tbody.querySelector(`tr[data-session-id="${CSS.escape(openID)}"]`), { silent: true });
  }

  const asking = () => ({ q: query, sort: sortID, order: sortDir });
  // An answer to an older question (the search or sort changed meanwhile) is dropped: the next load paints.
  const stale = (asked) => asked.q !== query || asked.sort !== sortID || asked.order !== sortDir;

  // The first page again, as many rows as are shown (a live refresh keeps what "Load more" added). The header shows
  // the sort once the rows in that order arrive.
  const loadList = refresher(async () => {
    const asked = asking();
    let page;
    try {
      const limit = Math.min(MAX_PAGE, Math.max(PAGE, sessions.length));
      page = await get('/api/sessions', { ...asked, limit }, { quiet: true });
    } catch (error) {
      fill(message, emptyState('Could not load sessions.', error.message));
      message.hidden = false;
      list.hidden = true;
      return;
    }
    if (stale(asked)) return;
    ({ sessions, nextCursor = null, total = 0 } = page);
    paintRows();
    // Time alone turns a waiting session into a stuck one (after 30 s): look again while one waits.
    clearTimeout(waitingTimer);
    if (sessions.some((s) => s.outcome === 'inProgress')) waitingTimer = setTimeout(loadList, 10000);
    paintMore();
    countLine.textContent = query ? `${total} found` : '';
    message.hidden = sessions.length > 0;
    list.hidden = sessions.length === 0;
    if (sessions.length) return;
    if (query) fill(message, emptyState(`No session matches “${query}”.`, 'Each word must start a username, user ID, tracking hash, device, session or visitor ID, app, Programmer or MVPD. ',
      h('button.linkish', { type: 'button', onclick: () => { search.value = ''; query = ''; go(openID, true); loadList(); } }, 'Clear the search'), '.'));
    else fill(message, emptyState('No sessions yet: no app has reported.',
      'Start a demo app on the ', h('a', { href: '#/flows' }, 'Flows page'), ', or run ', code(`passconsole flow --report-to ${location.origin}`), '.'));
  });

  function paintMore() {
    more.hidden = !nextCursor;
    more.textContent = `Load more (${sessions.length} of ${total} shown)`;
  }

  async function loadMore() {
    if (!nextCursor) return;
    more.disabled = true;
    try {
      const asked = asking();
      const page = await get('/api/sessions', { ...asked, limit: PAGE, cursor: nextCursor }, { quiet: true });
      if (stale(asked)) return;
      const shown = new Set(sessions.map((s) => s.id));
      sessions = [...sessions, ...page.sessions.filter((s) => !shown.has(s.id))];
      ({ nextCursor = null, total = 0 } = page);
      paintRows();
      paintMore();
    } catch (error) {
      fill(message, emptyState('Could not load more sessions.', error.message));
      message.hidden = false;
    } finally {
      more.disabled = false;
    }
  }

  const loadDetail = refresher(async () => {
    if (!openID) {
      detail.hidden = true;
      panes.classList.remove('narrow-list');
      detail.replaceChildren();
      return;
    }
    detail.hidden = false;
    panes.classList.add('narrow-list');
    if (!detail.childElementCount) fill(detail, h('p.muted', null, 'Loading the session…'));
    const top = detail.scrollTop;
    await renderSession(detail, openID);
    detail.scrollTop = top;
  });

  const offChange = live.onChange((events) => {
    loadList();
    if (openID && (!events.length || events.some((e) => e.event?.sessionID === openID))) loadDetail();
  }, 250);
  paintHead();
  loadList();
  loadDetail();

  return {
    update(next) {
      const [nextSort, nextDir] = readSort(next.params.sort);
      const q = next.params.q ?? '';
      if (nextSort !== sortID || nextDir !== sortDir || q !== query) {
        [sortID, sortDir] = [nextSort, nextDir];
        query = q;
        search.value = q;
        sessions = [];
        loadList();
      }
      const id = next.parts[0] ?? null;
      if (id !== openID) {
        openID = id;
        detail.replaceChildren();
        for (const tr of tbody.rows) {
          tr.classList.toggle('selected', tr.dataset.sessionId === id);
          tr.setAttribute('aria-selected', String(tr.dataset.sessionId === id));
        }
        loadDetail();
      }
    },
    key(key) {
      if (key === 'j') nav.move(1);
      else if (key === 'k') nav.move(-1);
      else if (key === 'Enter' && nav.current()) go(nav.current().dataset.sessionId, false);
      else if (key === 'Escape' && openID) go(null, false);
      else return false;
      return true;
    },
    unmount() {
      offChange();
      clearTimeout(waitingTimer);
    },
  };
}

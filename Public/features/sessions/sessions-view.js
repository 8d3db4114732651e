// Sessions: every app run the console has heard from (searchable), and one session's health, flow and timeline.
import { h, fill, timeEl, emptyState, code, debounce, listNav, refresher } from '../../lib/dom.js';
import { get } from '../../lib/api.js';
import { shortID } from '../../lib/format.js';
import * as live from '../../lib/live.js';
import { renderSession } from './session-detail.js';

export function mount(root, route, ctx) {
  let query = route.params.q ?? '';
  let openID = route.parts[0] ?? null;
  const search = h('input', {
    id: 'session-search', type: 'search', value: query, autocomplete: 'off', spellcheck: 'false',
    placeholder: 'Search app, Programmer, device or session ID', 'aria-label': 'Search sessions',
  });
  const tbody = h('tbody');
  const list = h('div.table-scroll', null, h('table.grid.live-table', { id: 'sessions-table' },
    h('caption.sr-only', null, 'Sessions, most recent first'),
    h('thead', null, h('tr', null, [['Last seen', 'c-time'], ['App', 'c-grow'], ['Programmer', 'c-term'], ['Device', 'c-dev'], ['Events', 'c-num']]
      .map(([t, cls]) => h('th', { scope: 'col', class: cls }, t)))),
    tbody));
  const message = h('div.table-message');
  const detail = h('div.pane.inspector.session-detail', { 'aria-label': 'Session details', hidden: true });
  const nav = listNav(() => tbody.rows);
  fill(root,
    h('div.view-head', null, h('h2', null, 'Sessions'),
      h('div.filter-row', null, h('label.filter-label', { for: 'session-search' }, 'Search'), search),
      h('p.muted.small', null, 'A session is one run of one app (from start to stop). Pick one to see its health and timeline.')),
    h('div.two-pane.sessions', null, h('div.pane.center', null, message, list), detail));

  const go = (id, replace) => ctx.navigate('sessions', id ? [id] : [], { q: query }, { replace });
  search.addEventListener('input', debounce(() => {
    query = search.value.trim();
    go(openID, true);
    loadList();
  }, 300));
  search.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') nav.move(1);
  });

  const loadList = refresher(async () => {
    let sessions;
    try {
      ({ sessions } = await get('/api/sessions', { q: query }, { quiet: true }));
    } catch (error) {
      fill(message, emptyState('Could not load sessions.', error.message));
      return;
    }
    sessions.sort((a, b) => Date.parse(b.lastSeen) - Date.parse(a.lastSeen));
    tbody.replaceChildren(...sessions.map((s) => {
      const tr = h('tr', { 'data-session-id': s.id, class: s.id === openID ? 'selected' : null, 'aria-selected': s.id === openID ? 'true' : null, title: `Session ${s.id}` },
        h('td.c-time', null, timeEl(s.lastSeen)),
        h('td', { title: `${s.bundleID} · team ${s.teamID}` }, s.bundleID, h('span.muted.small', null, ` ${s.platform === 'tvos' ? 'tvOS' : 'iOS'}`)),
        h('td', null, s.requestorID ?? h('span.muted', null, '—')),
        h('td', { title: s.deviceID }, shortID(s.deviceID)),
        h('td.c-num', null, String(s.eventCount)));
      tr.addEventListener('click', () => go(s.id, false));
      return tr;
    }));
    if (openID) nav.select(tbody.querySelector(`tr[data-session-id="${CSS.escape(openID)}"]`), { silent: true });
    message.hidden = sessions.length > 0;
    list.hidden = sessions.length === 0;
    if (sessions.length) return;
    if (query) fill(message, emptyState(`No session matches “${query}”.`, 'Search looks at the app, Programmer, device and session ID. ',
      h('button.linkish', { type: 'button', onclick: () => { search.value = ''; query = ''; go(openID, true); loadList(); } }, 'Clear the search'), '.'));
    else fill(message, emptyState('No sessions yet: no app has reported.',
      'Start a demo app on the ', h('a', { href: '#/flows' }, 'Flows page'), ', or run ', code(`passconsole flow --report-to ${location.origin}`), '.'));
  });

  const loadDetail = refresher(async () => {
    if (!openID) {
      detail.hidden = true;
      detail.replaceChildren();
      return;
    }
    detail.hidden = false;
    if (!detail.childElementCount) fill(detail, h('p.muted', null, 'Loading the session…'));
    const top = detail.scrollTop;
    await renderSession(detail, openID);
    detail.scrollTop = top;
  });

  const offChange = live.onChange((events) => {
    loadList();
    if (openID && (!events.length || events.some((e) => e.event?.sessionID === openID))) loadDetail();
  }, 250);
  loadList();
  loadDetail();

  return {
    update(next) {
      const q = next.params.q ?? '';
      if (q !== query) {
        query = q;
        search.value = q;
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
    unmount() { offChange(); },
  };
}

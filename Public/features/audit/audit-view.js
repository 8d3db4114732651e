// Audit log: who cleared, imported, undid or exported what, and when (newest first).
import { h, fill, timeEl, emptyState, code, listNav, refresher } from '../../lib/dom.js';
import { get } from '../../lib/api.js';
import { dateTime } from '../../lib/format.js';
import * as live from '../../lib/live.js';

const ICONS = { clear: '✗', import: '⤒', undo: '↶', export: '⤓', reveal: '⚠' };

function icon(action) {
  const key = Object.keys(ICONS).find((k) => String(action).toLowerCase().includes(k));
  return key ? ICONS[key] : '•';
}

export function mount(root) {
  const tbody = h('tbody');
  const table = h('div.table-scroll', null, h('table.grid', { id: 'audit-table' },
    h('caption.sr-only', null, 'Console actions, newest first'),
    h('thead', null, h('tr', null, ['When', 'Action', 'What', 'Who', 'From'].map((t) => h('th', { scope: 'col' }, t)))),
    tbody));
  const message = h('div.table-message');
  const nav = listNav(() => tbody.rows);
  fill(root,
    h('div.view-head', null, h('h1', null, 'Audit log'),
      h('p.lede', null, 'Every storage action taken from this console: clears, imports, undos and exports (exports with live tokens are marked ⚠), with the signed-in operator who did it (— on a console without named operators). Recorded by the console; it cannot be edited here.')),
    message, table);

  const load = refresher(async () => {
    let entries;
    try {
      ({ entries } = await get('/api/audit', undefined, { quiet: true }));
    } catch (error) {
      fill(message, emptyState('Could not load the audit log.', error.message));
      table.hidden = true;
      return;
    }
    entries.sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
    tbody.replaceChildren(...entries.map((e) => h('tr', { 'data-audit-id': e.id },
      h('td.c-time', { title: dateTime(e.at) }, timeEl(e.at)),
      h('td', null, h('span', { 'aria-hidden': 'true' }, `${icon(e.action)} `), e.action),
      h('td', null, e.detail),
      h('td.c-who', null, e.operatorName ?? '—'),
      h('td', null, code(e.remote ?? '—')))));
    table.hidden = entries.length === 0;
    message.hidden = entries.length > 0;
    if (!entries.length) {
      fill(message, emptyState('Nothing recorded yet: no one has cleared, imported or exported storage from this console.',
        'Actions on the ', h('a', { href: '#/tokens' }, 'Tokens page'), ' appear here.'));
    }
  });
  // Audit entries follow console actions, which also change app state; refresh on any change, lazily.
  const offChange = live.onChange(() => load(), 1000);
  load();
  return {
    unmount() { offChange(); },
    key(key) {
      if (key === 'j') nav.move(1);
      else if (key === 'k') nav.move(-1);
      else return false;
      return true;
    },
  };
}

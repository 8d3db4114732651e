// Migration to REST API v2: per app, the calls of the protocols switched off at the end of 2026 (the SDK's
// adobe-services, REST API v1, the web variant) its sessions still made, the v2 call that replaces each, and how many
// sessions made it. Read from GET /api/migration.
import { h, fill, emptyState, code, refresher } from '../../lib/dom.js';
import { get } from '../../lib/api.js';
import { dateTime } from '../../lib/format.js';

const WINDOWS = [[24, 'Last day'], [168, 'Last week'], [720, 'Last 30 days']];

export function mount(root, route) {
  let hours = Number(route?.params?.hours) || 168;
  const select = h('select', { id: 'migration-window', 'aria-label': 'Window' },
    WINDOWS.map(([value, label]) => h('option', { value: String(value), selected: value === hours }, label)));
  const status = h('p.table-message', { role: 'status' });
  const list = h('div', { id: 'migration-apps' });
  fill(root,
    h('div.view-head', null, h('h1', null, 'Migration to REST API v2'),
      h('p.lede', null, 'The vendor switches off the AccessEnabler SDKs and REST API v1 at the end of 2026. For each app seen in the window: which old calls its sessions still made, the REST API v2 call that replaces each, and how many sessions made it. An app whose sessions make no old call is migrated.'),
      h('label', null, 'Window ', select)),
    status, list);

  const load = refresher(async () => {
    let answer;
    try {
      answer = await get(`/api/migration?hours=${hours}`, undefined, { quiet: true });
    } catch (error) {
      fill(status, emptyState('Could not load the migration view.', error.message));
      list.replaceChildren();
      return;
    }
    const more = answer.sessionsInWindow > answer.scannedSessions
      ? ` (the newest ${answer.scannedSessions} of ${answer.sessionsInWindow} sessions read)` : '';
    fill(status, `${answer.sessionsInWindow} session(s) from ${dateTime(answer.from)} to ${dateTime(answer.until)}${more}.`);
    if (!answer.apps.length) {
      list.replaceChildren(emptyState('No sessions in this window.', 'Choose a longer window, or run an app.'));
      return;
    }
    list.replaceChildren(...answer.apps.map((app) => h('section.card', { 'data-app': app.app },
      h('h2', null, app.app, ' ', h('span.muted', null, [...app.clients, ...app.requestorIDs].join(' · '))),
      h('p', { class: app.legacySessions ? 'warning' : 'ok' }, app.summary),
      app.calls.length ? h('div.table-scroll', null, h('table.grid', null,
        h('caption.sr-only', null, `Old calls of ${app.app}`),
        h('thead', null, h('tr', null, ['Protocol', 'Old call', 'Sessions', 'Replace with (REST API v2)'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', null, app.calls.map((c) => h('tr', null,
          h('td', null, c.protocolName), h('td', null, code(c.call)), h('td.num', null, String(c.sessions)), h('td', null, code(c.replacement))))))) : null)));
  });
  select.addEventListener('change', () => { hours = Number(select.value); load(); });
  load();
  return { unmount() {} };
}

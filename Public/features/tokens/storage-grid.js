// One storage domain (a team's shared storage or an app's private storage) as a Programmer × MVPD grid.
import { h, badge, code } from '../../lib/dom.js';
import { tokenCell, clearAttrs } from './token-cell.js';
import { needs } from '../../lib/permissions.js';

/** MVPD columns: every MVPD any Programmer of the domain has, in first-seen order. */
function mvpdColumns(domain) {
  const ids = [];
  for (const programmer of domain.programmers ?? []) {
    for (const cell of programmer.mvpds ?? []) if (!ids.includes(cell.mvpdID)) ids.push(cell.mvpdID);
  }
  return ids;
}

function domainHead(domain) {
  const apps = domain.apps ?? [];
  return h('header.domain-head', null,
    h('div.domain-title', null,
      h('h2', null, domain.label),
      badge(domain.kind === 'team' ? '⇆' : '▢', domain.kind === 'team' ? 'Shared by a team' : 'Private to one app', 'neutral'),
      domain.version != null ? badge('#', `Storage version ${domain.version}`, 'neutral') : badge('?', 'No storage file yet', 'neutral')),
    h('dl.facts.compact', null,
      domain.device ? [h('dt', null, 'Device'), h('dd', null, domain.device)] : null,
      h('dt', null, 'Owner'), h('dd', null, code(domain.owner)),
      h('dt', null, 'File'), h('dd', null, code(domain.file)),
      h('dt', null, 'Used by'), h('dd', null, apps.length ? apps.map((a, i) => [i ? ', ' : '', code(a)]) : h('span.muted', null, 'no app on this device'))),
    domain.error ? h('p.domain-error', { role: 'alert' }, badge('✗', 'Cannot read this storage', 'bad'), ' ', domain.error) : null,
    h('div.toolbar', null,
      h('button.quiet-danger', { type: 'button', 'data-action': 'clear-all', ...needs('clear'), ...clearAttrs({ domain: domain.id }), title: 'Remove every token and MVPD choice in this storage (you will see the list first)' }, 'Clear all…'),
      h('span.spacer'),
      h('button', { type: 'button', 'data-action': 'export-storage', 'data-export-domain': domain.id, title: 'Download this storage with token values redacted' }, '⤓ Export (redacted)'),
      h('button', { type: 'button', 'data-action': 'export-storage-reveal', ...needs('reveal'), 'data-export-domain': domain.id, title: 'Download with live tokens: asks first; the audit log records it' }, '⤓ Export with live tokens…')));
}

/** The `<section>` of one domain. */
export function domainSection(domain) {
  const columns = mvpdColumns(domain);
  const programmers = domain.programmers ?? [];
  const body = programmers.length
    ? h('div.grid-scroll', null, h('table.grid.storage-table', null,
      h('caption.sr-only', null, `Tokens in ${domain.label}: Programmers in rows, MVPDs in columns`),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Programmer ↓ · MVPD →'), columns.map((id) => h('th', { scope: 'col' }, id)))),
      h('tbody', null, programmers.map((p) => {
        const cells = new Map((p.mvpds ?? []).map((c) => [c.mvpdID, c]));
        return h('tr', { 'data-requestor-row': p.requestorID },
          h('th', { scope: 'row' },
            h('div', null, code(p.requestorID)),
            h('div.small', null, p.selectedMvpd ? ['★ Selected: ', code(p.selectedMvpd)] : h('span.muted', null, 'No MVPD selected')),
            h('button.small.quiet-danger', {
              type: 'button', 'data-action': 'clear-programmer', ...needs('clear'), ...clearAttrs({ domain: domain.id, requestorID: p.requestorID }),
              title: `Remove everything stored for ${p.requestorID} in this storage`,
            }, 'Clear Programmer…')),
          columns.map((mvpdID) => tokenCell(domain, p, mvpdID, cells.get(mvpdID))));
      }))))
    : h('div.empty', { role: 'status' }, h('strong', null, 'Nothing stored here yet.'),
      h('p', null, 'No app using this storage has signed in. On the ', h('a', { href: '#/flows' }, 'Flows page'),
        ', start one of its apps and press “Get authentication”.'));
  return h('section.card.domain', { 'data-domain-id': domain.id, 'aria-label': domain.label }, domainHead(domain), body);
}

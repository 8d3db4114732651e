// One Programmer × MVPD cell of the storage grid: the sign-in (AuthN) token, the authorizations (AuthZ) per
// resource, and for each token the server's verdicts (TTL, issuer, device, version; for a sign-in, whether the backend
// accepts it for this Programmer) as ✓/✗ with words: passing
// checks as compact chips (their explanation on hover), failing ones spelled out.
import { h, badge, countdown, code } from '../../lib/dom.js';
import { needs } from '../../lib/permissions.js';

const RULES = { ttl: 'Time to live', issuer: 'Issuer allowed', device: 'Device matches', version: 'Storage version', requestor: 'Accepted from this Programmer' };
const FAILS = { ttl: 'Expired', issuer: 'Issuer not allowed', device: 'Device mismatch', version: 'Wrong storage version', requestor: 'Refused by the backend' };

function verdicts(token) {
  return h('ul.verdicts', null, (token.verdicts ?? []).map((v) => h('li.verdict', {
    'data-rule': v.rule, 'data-ok': String(Boolean(v.ok)), class: v.ok ? 'ok' : 'bad',
    title: `${RULES[v.rule] ?? v.rule}: ${v.text}`,
  }, v.ok
    ? [h('span.verdict-mark', null, '✓'), ' ', RULES[v.rule] ?? v.rule]
    : [h('span.verdict-mark', null, `✗ ${FAILS[v.rule] ?? v.rule}:`), ' ', v.text])));
}

function validity(token) {
  if (token.valid) return badge('✓', 'Valid', 'ok');
  const failed = (token.verdicts ?? []).filter((v) => !v.ok).map((v) => FAILS[v.rule] ?? v.rule);
  return badge('✗', failed.length ? `Invalid: ${failed.join(', ').toLowerCase()}` : 'Invalid', 'bad');
}

/** What a clear button removes, as `data-clear-*` attributes (read back by the clear flow). */
export const clearAttrs = (target) => ({
  'data-clear-domain': target.domain, 'data-clear-requestor': target.requestorID ?? null,
  'data-clear-mvpd': target.mvpdID ?? null, 'data-clear-resource': target.resource ?? null,
});

const clearButton = (target, label, title) => h('button.small.quiet-danger', { type: 'button', 'data-action': 'clear-token', ...needs('clear'), title, ...clearAttrs(target) }, label);

function tokenBlock(token, target, title) {
  return h('div.token', { 'data-token-kind': token.kind, 'data-resource': token.resource ?? null, 'data-valid': String(Boolean(token.valid)) },
    h('div.token-head', null, h('strong', null, title), ' ', validity(token), ' ', countdown(token.expires, token.issued)),
    token.userID ? h('div.small.muted', null, 'User ', code(token.userID)) : null,
    verdicts(token),
    token.next ? h('p.next.small', null, h('span', { 'aria-hidden': 'true' }, '→ '), token.next) : null,
    h('div.token-foot', null,
      token.preview ? h('details.preview', null, h('summary', null, 'Token (redacted)'), h('pre', null, token.preview)) : null,
      clearButton(target, token.kind === 'authn' ? 'Clear sign-in…' : 'Clear…',
        token.kind === 'authn' ? 'Remove the sign-in token of this cell (you will see exactly what goes first)' : `Remove the authorization for ${token.resource}`)));
}

/** Whether a cell holds anything a clear would remove. */
export const cellHasData = (cell, selected) => Boolean(cell && (cell.authn || cell.authz?.length || cell.preauthorized?.length || selected));

/** The `<td>` of one cell (`cell` may be undefined when the MVPD is not offered to this Programmer). */
export function tokenCell(domain, programmer, mvpdID, cell) {
  const selected = programmer.selectedMvpd === mvpdID;
  const target = { domain: domain.id, requestorID: programmer.requestorID, mvpdID };
  const attrs = { 'data-domain': domain.id, 'data-requestor': programmer.requestorID, 'data-mvpd': mvpdID, class: selected ? 'cell selected-mvpd' : 'cell' };
  if (!cell) return h('td', { ...attrs, class: 'cell na', 'data-offered': 'false' }, h('span.muted.small', null, 'Not offered to this Programmer'));
  const authz = cell.authz ?? [];
  return h('td', attrs,
    h('div.cell-flags', null,
      selected ? badge('★', 'Selected MVPD', 'selected', 'The MVPD the SDK remembers for this Programmer') : null,
      cell.canAuthenticate ? null : badge('⊘', 'Cannot sign in here', 'neutral', 'This MVPD is not in the Programmer’s configuration')),
    cell.authn ? tokenBlock(cell.authn, target, 'Sign-in (AuthN)') : h('p.muted.small', null, 'No sign-in token.'),
    authz.length
      ? h('div.authz', null, h('div.small.muted', null, `${authz.length} authorization${authz.length === 1 ? '' : 's'} (AuthZ)`),
        authz.map((t) => tokenBlock(t, { ...target, resource: t.resource }, `Resource ${t.resource}`)))
      : h('p.muted.small', null, 'No authorizations.'),
    cell.preauthorized ? h('p.small', null, 'Preauthorized: ', cell.preauthorized.length ? cell.preauthorized.join(', ') : 'none') : null,
    cellHasData(cell, selected)
      ? h('button.small.quiet-danger', {
        type: 'button', 'data-action': 'clear-mvpd', ...needs('clear'), ...clearAttrs(target),
        title: `Remove everything stored for ${programmer.requestorID} with ${mvpdID}`,
      }, 'Clear this cell…')
      : null);
}

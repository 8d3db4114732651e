// Which apps on the device share a sign-in: a matrix of app pairs with the outcome in words, and the reason.
import { h, badge, code } from '../../lib/dom.js';

export const OUTCOMES = {
  sso: { icon: '✓', text: 'Single sign-on', cls: 'ok', long: 'Signing in with one app signs in the other when it next starts: its SDK finds the sign-in in the shared storage (a silent copy the service accepts, or passive authentication).' },
  partialSSO: { icon: '⚠', text: 'Single sign-on with some MVPDs', cls: 'warn', long: 'Shared storage and device ID, but with some MVPDs the sign-in does not reach the other app: see each MVPD below.' },
  noSSO: { icon: '✗', text: 'Shared, no single sign-on', cls: 'warn', long: 'Shared storage and device ID, yet no MVPD both Programmers integrate carries the sign-in over: see each MVPD below.' },
  sharedStorageSignInEach: { icon: '⚠', text: 'Shared, sign in once each', cls: 'warn', long: 'They share storage but not the device ID: the viewer signs in once in each app, and both stay signed in (AccessEnabler 1.7).' },
  sharedStorageReauth: { icon: '⚠', text: 'Shared, sign in again', cls: 'warn', long: 'They share storage, but the other app wipes it: the viewer signs in again.' },
  isolated: { icon: '⊘', text: 'Isolated', cls: 'neutral', long: 'Nothing shared: each app signs in on its own.' },
};

export const outcomeBadge = (outcome) => {
  const o = OUTCOMES[outcome] ?? { icon: '?', text: outcome, cls: 'neutral' };
  return badge(o.icon, o.text, o.cls, o.long);
};

/** A list of relations with their reasons (used by the map and the what-if result). */
export function relationList(relations) {
  if (!relations.length) return h('p.muted', null, 'No other app on this device to compare with.');
  return h('ul.relations', null, relations.map((r) => h('li', { 'data-outcome': r.outcome },
    code(r.a), ' ↔ ', code(r.b), ': ', outcomeBadge(r.outcome), h('span.reason', null, ` ${r.reason}`),
    r.mvpds?.length ? mvpdPaths(r.mvpds) : null)));
}

// Per MVPD both Programmers integrate: what the SDK's storage rules and the backend's token check make of a sign-in.
const PATHS = {
  sso: ['✓', 'SSO (copied)', 'ok'],
  passive: ['✓', 'SSO (passive authentication)', 'ok'],
  signInAgain: ['✗', 'Sign in again', 'warn'],
};

function mvpdPaths(paths) {
  return h('ul.sso-paths', null, paths.map((p) => {
    const [icon, text, cls] = PATHS[p.outcome] ?? ['?', p.outcome, 'neutral'];
    return h('li', { 'data-mvpd': p.mvpd, 'data-path': p.outcome, 'data-side': p.side ?? undefined },
      code(p.mvpd), ' ', badge(icon, text, cls, p.rule ? `Rule: ${p.rule}` : undefined), h('span.reason', null, ` ${p.reason}`));
  }));
}

/** Matrix of apps × apps; the diagonal is the app itself. */
export function ssoMap(apps, relations) {
  const ids = apps.map((a) => a.bundleID);
  const find = (a, b) => relations.find((r) => (r.a === a && r.b === b) || (r.a === b && r.b === a));
  if (ids.length < 2) {
    return h('p.muted', null, ids.length ? 'Only one app on this device: nothing to share with.' : 'No apps on this device yet.');
  }
  return h('div', null,
    h('div.grid-scroll', null, h('table.grid.sso-matrix', null,
      h('caption.sr-only', null, 'Single sign-on between app pairs'),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'App'), ids.map((id) => h('th', { scope: 'col' }, code(id))))),
      h('tbody', null, ids.map((a) => h('tr', null, h('th', { scope: 'row' }, code(a)), ids.map((b) => {
        if (a === b) return h('td.muted', null, '—');
        const r = find(a, b);
        return h('td', { title: r?.reason ?? 'No relation reported' }, r ? outcomeBadge(r.outcome) : h('span.muted', null, 'unknown'));
      })))))),
    h('h3', null, 'Why'), relationList(relations));
}

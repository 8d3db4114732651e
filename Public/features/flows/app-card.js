// One demo app as a card: who it is, its flow diagram, what it waits for, the SDK calls, and the latest callbacks.
// Refreshes replace only the sections whose data changed, so a half-typed password survives a live update.
import { h, fill, badge, timeEl, code } from '../../lib/dom.js';
import { hashFor } from '../../lib/route.js';
import { shortID } from '../../lib/format.js';
import { flowDiagram, isStuck } from '../../lib/flow-diagram.js';
import { pendingPanel } from './pending-panel.js';
import { actionsSection } from './app-actions.js';

// The sign-in the card shows is what the storage the app reads holds now, judged by the SDK's rules on the server
// (`signIn`), not the app's last callback: a logout in a sibling app or a token the service refuses shows at once.
const SIGN_IN = {
  signedIn: ['✓', 'Signed in', 'ok'],
  deviceOnly: ['⚠', 'Signed in on this device only', 'warn'],
  signedOut: ['✗', 'Not signed in', 'neutral'],
};

function authBadge(signIn, authenticated) {
  if (signIn) {
    const [icon, text, cls] = SIGN_IN[signIn.state] ?? ['?', signIn.state, 'neutral'];
    return h('span.sign-in', { 'data-sign-in': signIn.state }, badge(icon, text, cls, signIn.text));
  }
  if (authenticated === true) return badge('✓', 'Signed in', 'ok');
  if (authenticated === false) return badge('✗', 'Not signed in', 'neutral');
  return badge('?', 'Sign-in not checked yet', 'neutral');
}

function signInFacts(signIn) {
  if (!signIn) return null;
  return [h('dt', null, 'Sign-in'), h('dd.sign-in-text', null, signIn.text,
    signIn.stale ? h('span.stale.small', null, ' ', badge('⚠', 'App state stale', 'warn'), ' ', signIn.stale) : null)];
}

function head(app) {
  return h('div.card-head', null,
    h('div.card-title', null,
      h('h2', null, app.name),
      app.running ? badge('●', 'Running', 'ok') : badge('○', 'Stopped', 'neutral'),
      authBadge(app.signIn, app.authenticated)),
    h('dl.facts.compact', null,
      h('dt', null, 'App'), h('dd', null, code(app.bundleID), ` · team ${app.teamID} · ${app.platform === 'tvos' ? 'tvOS' : 'iOS'}`),
      h('dt', null, 'Programmer'), h('dd', null, code(app.requestorID)),
      h('dt', null, 'Session'), h('dd', null, app.sessionID
        ? h('a', { href: hashFor('sessions', [app.sessionID]), title: app.sessionID }, `${shortID(app.sessionID)} · timeline and health`)
        : h('span.muted', null, 'none: the app has not started yet')),
      h('dt', null, 'Device ID'), h('dd', null, code(app.deviceID ?? '—'), app.deviceIDSource ? h('span.muted', null, ` (${app.deviceIDSource})`) : null),
      h('dt', null, 'Storage'), h('dd', null, h('a', { href: hashFor('tokens'), title: 'See its tokens' }, app.storageDomain)),
      signInFacts(app.signIn)));
}

function callbacks(app) {
  const list = app.callbacks ?? [];
  return h('div.callbacks-box', null,
    h('h3', null, 'Latest callbacks ', h('span.muted.small', null, '(newest first)')),
    list.length
      // A box that scrolls: focusable, so the keyboard can scroll it too.
      ? h('ol.callbacks', { tabindex: '0', 'aria-label': `Latest callbacks of ${app.name}, newest first` }, list.map((c) => h('li', null, timeEl(c.at), ' ', h('code.cb-name', null, c.name), ' ', h('span.cb-summary', null, c.summary))))
      : h('p.muted.small', null, app.running ? 'No callbacks yet: call an SDK method above.' : 'No callbacks: the app is not running.'));
}

const SECTIONS = [
  { name: 'head', key: (a) => [a.name, a.running, a.authenticated, a.signIn, a.bundleID, a.teamID, a.platform, a.requestorID, a.sessionID, a.deviceID, a.deviceIDSource, a.storageDomain], render: head },
  // The stuck mark depends on the clock too: `refresh()` re-checks it while the data stays the same.
  { name: 'flow', key: (a) => [a.flow, a.running, isStuck(a.flow)], render: (a) => flowDiagram(a.flow, a.running) },
  { name: 'pending', key: (a) => [a.pending, a.name], render: (a) => pendingPanel(a) },
  { name: 'actions', key: (a) => [a.running, a.resources], render: null },
  { name: 'callbacks', key: (a) => [a.callbacks, a.running], render: callbacks },
];

/** A new card for `app`; `onApp(app)` gets the app the server returns after start/stop. */
export function createAppCard(app, onApp) {
  const card = h('article.card.app-card', { 'data-app-id': app.id, 'aria-label': app.name });
  const slots = {};
  const keys = {};
  let current = app;
  for (const section of SECTIONS) {
    slots[section.name] = h('div', { class: `slot slot-${section.name}` });
    card.append(slots[section.name]);
  }
  // The status line outlives re-renders of the buttons (start/stop change them), so what it says stays visible.
  const status = h('p.card-status.small', { role: 'status' });
  const renderers = {
    ...Object.fromEntries(SECTIONS.map((s) => [s.name, s.render])),
    actions: (a) => actionsSection(a, () => current, onApp, status),
  };

  function update(next) {
    current = next;
    card.classList.toggle('running', Boolean(next.running));
    for (const section of SECTIONS) {
      const key = JSON.stringify(section.key(next));
      if (keys[section.name] === key) continue;
      keys[section.name] = key;
      fill(slots[section.name], renderers[section.name](next));
    }
  }
  update(app);
  slots.actions.after(status);
  return { el: card, update, refresh: () => update(current) };
}

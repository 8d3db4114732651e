// The shell: hash router, context bar (backend, counts, live/paused), keyboard shortcuts, one live connection.
import { overview, get } from './lib/api.js';
import * as live from './lib/live.js';
import { parseHash, hashFor, NOT_FOUND } from './lib/route.js';
import { startTicker, debounce, h, fill } from './lib/dom.js';
import { plural, clockSkewMs, span, exactTime, dateTime, setServerNow } from './lib/format.js';
import { banner, dismissToasts } from './lib/ui.js';
import { paintSignedIn } from './lib/sign-in.js';
import { applyRole } from './lib/permissions.js';

const VIEWS = {
  flows: () => import('./features/flows/flows-view.js'),
  tokens: () => import('./features/tokens/tokens-view.js'),
  devices: () => import('./features/devices/devices-view.js'),
  events: () => import('./features/events/events-view.js'),
  network: () => import('./features/network/network-view.js'),
  sessions: () => import('./features/sessions/sessions-view.js'),
  migration: () => import('./features/migration/migration-view.js'),
  audit: () => import('./features/audit/audit-view.js'),
  [NOT_FOUND]: () => import('./features/not-found/not-found-view.js'),
};

const main = document.getElementById('main');
let active = null; // {tab, view, root}
let generation = 0;

/** Go to a route. `replace` edits the current history entry (typing in a filter should not flood Back). */
function navigate(tab, parts = [], params = {}, { replace = false } = {}) {
  const hash = hashFor(tab, parts, params);
  if (hash === location.hash) return;
  if (replace) {
    history.replaceState(history.state, '', hash);
    route();
  } else {
    location.hash = hash;
  }
}

const ctx = { navigate, hashFor };

async function route() {
  const current = parseHash();
  for (const link of document.querySelectorAll('a[data-tab]')) {
    if (link.dataset.tab === current.tab) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (active && active.tab === current.tab && active.view?.update) {
    active.view.update(current);
    setTitle(current);
    return;
  }
  // Toasts speak of the page they came from: another page starts without them (the Undo offer stays).
  if (active && active.tab !== current.tab) dismissToasts();
  const mine = ++generation;
  active?.view?.unmount?.();
  active = null;
  const module = await VIEWS[current.tab]();
  if (mine !== generation) return;
  const root = document.createElement('section');
  root.id = `view-${current.tab}`;
  root.className = `view view-${current.tab}`;
  main.replaceChildren(root);
  active = { tab: current.tab, root, view: null };
  active.view = module.mount(root, current, ctx);
  setTitle(current);
}

/** The tab's name, and what it shows when that is narrower (a session, a filter), so browser tabs and history tell
 * pages apart. */
function setTitle(current) {
  const tab = document.querySelector(`a[data-tab="${current.tab}"]`)?.textContent ?? 'No such page';
  const detail = current.tab === NOT_FOUND ? '' : current.parts[0] ? `session ${current.parts[0].slice(0, 8)}` : current.params.q ?? '';
  document.title = `${detail ? `${detail} · ` : ''}${tab} · PassConsole`;
}

// Context bar -------------------------------------------------------------------------------------------------

const setText = (id, text, title) => {
  const el = document.getElementById(id);
  el.textContent = text;
  if (title !== undefined) el.title = title;
};

async function refreshOverview() {
  try {
    const data = await overview(true);
    setText('ctx-backend', data.offline ? 'Backend: none (offline bundle)' : `Backend: ${data.backendURL}`, `Entitlement backend ${data.backendURL}\nDevice folder: ${data.deviceFolder}\nHistory: ${data.historyFile}\nConsole ${data.version}, started ${exactTime(data.startedAt)}`);
    const c = data.counts ?? {};
    const parts = c.events == null ? ['history unreadable'] : [plural(c.events, 'event'), plural(c.sessions ?? 0, 'session')];
    if (c.ingestPending) parts.push(`${c.ingestPending} waiting to be saved`);
    if (c.ingestDropped) parts.push(`⚠ ${plural(c.ingestDropped, 'event')} dropped (reporters sent faster than the console could save)`);
    setText('ctx-counts', parts.join(' · '));
    paintFleet(data.fleet ?? []);
    paintHistoryHealth(data.history);
    paintOffline(data.offline);
    const me = await get('/api/me', undefined, { quiet: true }).catch(() => null);
    paintSignedIn(me);
    applyRole(me);
    const skew = clockSkewMs();
    const skewEl = document.getElementById('ctx-skew');
    skewEl.hidden = Math.abs(skew) < 2000;
    skewEl.textContent = `⚠ Browser clock ${span(skew)} ${skew > 0 ? 'ahead of' : 'behind'} the console`;
  } catch (error) {
    setText('ctx-backend', error.status === 401 ? 'Backend: sign in to see' : 'Backend: console unreachable');
    if (error.status !== 401) banner('Cannot reach the console.', error.detail ?? error.message);
  }
}

/** A console opened on a support bundle says so on every page: what it shows, and that nothing can change. */
function paintOffline(offline) {
  const el = document.getElementById('offline');
  el.hidden = !offline;
  if (!offline) return;
  fill(el, h('span.icon', { 'aria-hidden': 'true' }, '▣'), ' ',
    h('strong', null, 'Offline: a support bundle, read-only. '),
    h('span', { title: exactTime(offline.createdAt) }, `${offline.file} — session ${offline.sessionID.slice(0, 8)} of ${offline.bundleID}, made ${dateTime(offline.createdAt)}. `),
    'Storage and the health card are shown as they were then; nothing here can be changed. ',
    h('a', { href: hashFor('sessions', [offline.sessionID]) }, 'Open the session'));
}

/** Failures hitting an app on every device: one banner each, on every page, with a link to the sessions. */
function paintFleet(alerts) {
  const el = document.getElementById('fleet');
  el.hidden = alerts.length === 0;
  fill(el, ...alerts.map((alert) => h('div.fleet-alert', { 'data-alert': alert.id },
    h('span.icon', { 'aria-hidden': 'true' }, '⚠'), ' ',
    h('strong', null, `Not a user problem — ${alert.title}. `),
    h('span', null, alert.text, ' '),
    h('a', { href: hashFor('sessions', [], { q: alert.bundleID }) }, `See the ${plural(alert.sessions, 'session')}`))));
}

/** A history that cannot be written or is damaged: why and what to do, on every page, until it works again. */
function paintHistoryHealth(health) {
  const el = document.getElementById('history-health');
  const problem = health && health.state !== 'ok' ? health : null;
  el.hidden = !problem;
  el.dataset.state = problem?.state ?? 'ok';
  if (!problem) return el.replaceChildren();
  const since = problem.since ? ` Since ${dateTime(problem.since)}.` : '';
  fill(el, h('span.icon', { 'aria-hidden': 'true' }, '⚠'), ' ',
    h('strong', null, 'Event history: '), h('span.message', null, problem.message + since, ' '),
    h('span.detail', { title: problem.file ?? '' }, problem.detail ?? ''));
}

let downTimer = null;

/** Says so on every page when the console stops answering for more than a few seconds (stopped, restarting). */
function watchConnection(status) {
  if (status === 'live') {
    if (downTimer === null && document.getElementById('banner').dataset.reason === 'down') {
      banner(null);
      refreshOverview();
    }
    clearTimeout(downTimer);
    downTimer = null;
    return;
  }
  if (status === 'connecting' || downTimer !== null) return;
  downTimer = setTimeout(() => {
    downTimer = null;
    // Waiting for a sign-in is not being down: the feed is refused until then, and the form must stay.
    if (document.getElementById('banner').dataset.reason === 'sign-in') return;
    banner('The console is not answering.', 'It may have stopped or be restarting. This page shows what it last knew and reconnects by itself.');
    document.getElementById('banner').dataset.reason = 'down';
  }, 4000);
}

function paintLive({ status, paused }) {
  watchConnection(status);
  const button = document.getElementById('ctx-live');
  const words = { live: 'Live', connecting: 'Connecting…', reconnecting: 'Reconnecting…', offline: 'Offline: retrying' };
  const text = paused ? 'Paused (press p to resume)' : words[status] ?? status;
  button.dataset.state = paused ? 'paused' : status;
  button.setAttribute('aria-pressed', String(paused));
  button.querySelector('.live-dot').textContent = paused ? '❚❚' : status === 'live' ? '●' : '○';
  button.querySelector('.live-text').textContent = text;
}

// Keyboard ----------------------------------------------------------------------------------------------------

function isTyping(target) {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (document.querySelector('dialog[open]')) return; // dialogs handle their own keys (Esc closes them)
  if (isTyping(event.target)) {
    if (event.key === 'Escape') event.target.blur();
    return;
  }
  const key = event.key;
  if (key === '?') {
    document.getElementById('help-dialog').showModal();
  } else if (key === '/' || key === 'f') {
    // `/` focuses the page's own box; `f` (and `/` on a page without one) finds a customer from any page.
    const box = key === '/' ? document.querySelector('#main #filter-input, #main #session-search') : null;
    if (box) {
      box.focus();
      box.select?.();
    } else {
      findCustomer();
    }
  } else if (key === 'p') {
    live.togglePause();
  } else if (['j', 'k', 'ArrowDown', 'ArrowUp', 'Enter', 'Escape'].includes(key)) {
    if (key === 'Enter' && event.target instanceof HTMLElement && event.target.closest('button, a, summary')) return;
    const handled = active?.view?.key?.(key === 'ArrowDown' ? 'j' : key === 'ArrowUp' ? 'k' : key);
    if (!handled) return;
  } else {
    return;
  }
  event.preventDefault();
}

/** Opens the Sessions search, focused, from any page. */
function findCustomer() {
  if (active?.tab !== 'sessions') navigate('sessions', [], {});
  const focus = (tries) => {
    const box = document.querySelector('#main #session-search');
    if (box) {
      box.focus();
      box.select();
    } else if (tries > 0) {
      requestAnimationFrame(() => focus(tries - 1));
    }
  };
  focus(120);
}

// Start -------------------------------------------------------------------------------------------------------

function start() {
  document.getElementById('ctx-zone').textContent = `Times: ${Intl.DateTimeFormat().resolvedOptions().timeZone}`;
  document.addEventListener('keydown', onKey);
  document.querySelector('[data-action="help"]').addEventListener('click', () => document.getElementById('help-dialog').showModal());
  document.querySelector('[data-action="find-customer"]').addEventListener('click', findCustomer);
  document.querySelector('[data-action="close-help"]').addEventListener('click', () => document.getElementById('help-dialog').close());
  document.getElementById('ctx-live').addEventListener('click', () => live.togglePause());
  document.querySelector('[data-action="skip"]').addEventListener('click', () => main.focus());
  window.addEventListener('hashchange', route);
  if (!location.hash) history.replaceState(history.state, '', '#/flows');
  live.onStatus(paintLive);
  live.connect();
  live.onChange(debounce(refreshOverview, 750), 250);
  refreshOverview();
  // Also on a timer: a history that cannot be written brings no new events to trigger a refresh, yet must show.
  setInterval(refreshOverview, 10000);
  // The storage clock: keeps TTL countdowns on the server's time even when the browser's clock is off.
  get('/api/storage', undefined, { quiet: true }).then((data) => setServerNow(data.now)).catch(() => {});
  startTicker();
  route();
}

start();

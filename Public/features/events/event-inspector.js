// The right pane of the events page: one event in words (Overview), its HTTP exchange when it has one, and the
// raw JSON as stored.
import { h, badge, keyValues, tabs, timeEl } from '../../lib/dom.js';
import { KINDS, exactTime, kindLabel, duration } from '../../lib/format.js';
import { hashFor } from '../../lib/route.js';
import { exchangeDetail, exchangeOf, statusBadge } from '../../lib/exchange-detail.js';

/** The payload of the event's kind: `{name, values}` from `{"callback": {...}}`-style JSON. */
function kindPayload(event) {
  const raw = event.event?.kind ?? {};
  const name = Object.keys(raw)[0] ?? event.kind;
  return { name, values: raw[name] ?? {} };
}

/** What a delegate callback tells the app, in words (the seeds' cookbook). */
function callbackMeaning(cb) {
  const count = (list) => (Array.isArray(list) ? list.length : 0);
  switch (cb.callback) {
    case 'setRequestorComplete':
      return cb.status === 1 ? 'The SDK is configured for this Programmer; calls that waited now run.' : 'The SDK could not load the Programmer’s configuration; every waiting call fails.';
    case 'setAuthenticationStatus':
      return cb.status === 1 ? 'The viewer is signed in with a TV provider.'
        : `The viewer is not signed in${cb.errorCode ? ` (${cb.errorCode})` : ''}; the app should offer to sign in.`;
    case 'displayProviderDialog': return `The app should show its TV provider picker (${count(cb.mvpds)} providers).`;
    case 'navigateToUrl': return 'The app should open this page in its web view: the TV provider’s sign-in (or sign-out).';
    case 'setToken': return `The viewer may watch ${cb.resource ?? 'the resource'}: a media token for one playback (never stored).`;
    case 'tokenRequestFailed':
      return `No playback of ${cb.resource ?? 'the resource'}: ${cb.errorCode ?? 'error'}${cb.errorDescription ? ` — ${cb.errorDescription.replace(/[.\s]+$/, '')}` : ''}.`;
    case 'selectedProvider': return cb.mvpd ? `The SDK remembers ${cb.mvpd.displayName ?? cb.mvpd.ID} for this Programmer.` : 'No TV provider is selected.';
    case 'sendTrackingData': return `A tracking event (${cb.event ?? '?'}) for the app’s analytics.`;
    case 'setMetadataStatus': return 'The answer to the app’s getMetadata call.';
    case 'preauthorizedResources': return `Resources the viewer may watch: ${count(cb.resources) ? cb.resources.join(', ') : 'none'}.`;
    case 'presentTvProviderDialog': return 'The app should show the system’s TV provider sign-in (Apple single sign-on).';
    case 'dismissTvProviderDialog': return 'The app should close the system’s TV provider sign-in.';
    case 'status': return 'A status for the app (on tvOS, the registration code to show).';
    default: return '';
  }
}

/** Plain words for the kind-specific part. */
function kindDetail(event) {
  const { values } = kindPayload(event);
  switch (event.kind) {
    case 'apiCall':
      return [h('p', null, 'The app called ', h('code', null, values.name ?? '?'), '.'), keyValues(values.arguments, 'No arguments.')];
    case 'stateChanged':
      return h('p', null, `The ${values.flow ?? ''} flow moved from `, h('code', null, values.from ?? '?'), ' to ', h('code', null, values.to ?? '?'), '.');
    case 'storageChanged':
      return h('p', null, 'Token storage ', h('code', null, values.domain ?? '?'), ` changed: ${values.change ?? ''}.`);
    case 'error':
      return h('div.explain', null, badge('✗', `Error ${values.code ?? ''}`, 'sev-error'), h('p', null, values.message ?? ''));
    case 'callback': {
      const cb = values.callback ?? {};
      const { callback: name, ...args } = cb;
      return [h('p', null, 'The SDK called the app’s ', h('code', null, name ?? '?'), '. ', callbackMeaning(cb)), keyValues(args, 'No arguments.')];
    }
    case 'tracking':
      return [h('p', null, 'Tracking event ', h('code', null, String(values.event ?? '')), '.'), keyValues(Object.fromEntries((values.data ?? []).map((v, i) => [String(i), v])), 'No data.')];
    case 'httpExchange': {
      const x = values.exchange ?? {};
      return h('p', null, statusBadge(event), ' ', h('code', null, `${x.method ?? ''} ${x.url ?? ''}`), ` in ${duration(x.durationMs)}. Parameters, headers and the response are in the HTTP tab.`);
    }
    default:
      return keyValues(values, 'Nothing more recorded.');
  }
}

/** The inspector's content for `event`; `onTerm(key, value)` narrows the filter. */
export function eventInspector(event, { onTerm, onClose }) {
  const e = event.event ?? {};
  const exchange = exchangeOf(event);
  const kind = KINDS[event.kind] ?? { icon: '•' };
  const term = (key, value, label) => (value
    ? h('button.linkish', { type: 'button', title: `Show only events with ${key}:${value}`, onclick: () => onTerm(key, value) }, label ?? value)
    : h('span.muted', null, 'not known yet'));
  const overview = () => [
    h('dl.facts', null,
      h('dt', null, 'When'), h('dd', null, timeEl(e.timestamp), h('div.muted.small', null, exactTime(e.timestamp))),
      h('dt', null, 'What'), h('dd', null, badge(kind.icon, kindLabel(event.kind), `kind kind-${event.kind}`), ' ', event.summary),
      h('dt', null, 'App'), h('dd', null, term('app', e.app?.bundleID), ` · team ${e.app?.teamID ?? '—'} · ${e.app?.platform ?? ''}`),
      h('dt', null, 'Programmer'), h('dd', null, term('programmer', e.requestorID)),
      h('dt', null, 'MVPD'), h('dd', null, term('mvpd', e.mvpdID)),
      h('dt', null, 'Session'), h('dd', null, e.sessionID
        ? [h('a', { href: hashFor('sessions', [e.sessionID]) }, 'Open the session timeline'), ' · ', term('session', e.sessionID, 'only this session')]
        : '—'),
      h('dt', null, 'Device ID'), h('dd', null, h('code', null, e.deviceID ?? '—')),
      h('dt', null, 'Order'), h('dd', null, `Event #${event.id} · step ${e.sequence ?? '?'} of its session`)),
    h('h3', null, 'Details'), kindDetail(event),
  ];
  const list = [{ id: 'overview', label: 'Overview', render: overview }];
  if (exchange) list.push({ id: 'http', label: 'HTTP', render: () => exchangeDetail(exchange) });
  list.push({ id: 'raw', label: 'Raw JSON', render: () => h('pre.body', null, JSON.stringify(event.event ?? event, null, 2)) });
  return [
    h('div.pane-head', null, h('h2', null, `Event #${event.id}`),
      h('button.ghost', { type: 'button', 'data-action': 'close-detail', title: 'Close (Esc)', onclick: onClose }, '×')),
    tabs('event-inspector', list),
  ];
}

// Devices & SSO: the simulated device, how each app's device ID is computed (algorithm and inputs), which apps
// share a sign-in, and a what-if for an app not installed yet.
import { h, fill, emptyState, code, refresher } from '../../lib/dom.js';
import { get } from '../../lib/api.js';
import * as live from '../../lib/live.js';
import { ssoMap } from './sso-map.js';
import { whatIfForm } from './whatif-form.js';
import { tvProviderCard } from './tv-provider-form.js';

function profileCard(profile) {
  return h('section.card', { 'aria-label': `Device ${profile.device ?? ''}` },
    h('h2', null, profile.device ? `Device “${profile.device}”` : 'This device'),
    h('dl.facts', null,
      h('dt', null, 'Model'), h('dd', null, profile?.model ?? '—'),
      h('dt', null, 'OS version'), h('dd', null, profile?.osVersion ?? '—'),
      h('dt', null, 'Hardware address'), h('dd', null, code(profile?.hardwareAddress ?? '—'),
        h('span.muted.small', null, ' (used by the older, MAC-based device ID)'))));
}

function appsTable(apps) {
  if (!apps.length) return h('p.muted', null, 'No apps on this device yet.');
  const devices = apps.some((a) => a.device);
  return h('div.grid-scroll', null, h('table.grid', null,
    h('caption.sr-only', null, 'Device ID per app'),
    h('thead', null, h('tr', null, [devices ? 'Device' : null, 'App', 'Team', 'Platform', 'How the device ID is made', 'Inputs', 'Device ID']
      .filter(Boolean).map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, apps.map((a) => h('tr', { 'data-bundle-id': a.bundleID },
      devices ? h('td', null, a.device ?? '—') : null,
      h('td', null, code(a.bundleID)), h('td', null, a.teamID), h('td', null, a.platform === 'tvos' ? 'tvOS' : 'iOS'),
      h('td', null, a.algorithm),
      h('td', null, h('ul.inputs', null, Object.entries(a.inputs ?? {}).map(([k, v]) => h('li', null, `${k}: `, code(String(v)))))),
      h('td', null, code(a.deviceID)))))));
}

export function mount(root) {
  const body = h('div.stack');
  fill(root,
    h('div.view-head', null, h('h1', null, 'Devices & single sign-on'),
      h('p.lede', null, 'Why two apps share a sign-in (or not), and which device ID each app’s tokens are bound to.')),
    body, tvProviderCard(), whatIfForm());

  const load = refresher(async () => {
    try {
      const data = await get('/api/devices', undefined, { quiet: true });
      const apps = data.apps ?? [];
      const profiles = data.profiles ?? (data.profile ? [data.profile] : []);
      fill(body,
        profiles.length ? h('div.card-row', null, profiles.map(profileCard))
          : emptyState('No device profile yet.', 'A device folder gets its profile (model, OS, hardware address) the first time an app starts on it.'),
        h('section.card', { 'aria-labelledby': 'ids-heading' }, h('h2', { id: 'ids-heading' }, 'Device ID per app'),
          h('p.muted.small', null, 'A token is only accepted by an app whose device ID matches the one it was issued for.'), appsTable(apps)),
        h('section.card', { 'aria-labelledby': 'sso-heading' }, h('h2', { id: 'sso-heading' }, 'Single sign-on map'),
          ssoMap(apps, data.relations ?? [])));
    } catch (error) {
      fill(body, emptyState('Could not read the device.', error.message, error.detail ? ` ${error.detail}` : ''));
    }
  });
  // Apps and devices change rarely; refresh only when app state changes, not on every event.
  const offChange = live.onChange((events) => { if (!events.length) load(); }, 1000);
  load();
  return { unmount() { offChange(); } };
}

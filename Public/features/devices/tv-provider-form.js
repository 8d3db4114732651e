// The device's Apple TV Provider (Settings → TV Provider): what its user does in the Apple dialog that an app opens
// when its Programmer has an MVPD with Apple single sign-on. One row per device; every app on it reads the choice at
// its next getAuthentication.
import { h, fill, badge } from '../../lib/dom.js';
import { get, request } from '../../lib/api.js';
import { needs } from '../../lib/permissions.js';

const CHOICES = [
  ['none', 'Not signed in to any TV provider'],
  ['other', 'Picks “Other TV Provider”'],
  ['cancel', 'Closes the dialog (cancel)'],
  ['denied', 'Denied this app access to the TV provider'],
];

function row(device, mvpds) {
  const select = h('select', { id: `tvp-${device}`, 'data-device': device },
    CHOICES.map(([value, label]) => h('option', { value }, label)),
    mvpds.map((m) => h('option', { value: `pick:${m.id}` }, `Signed in to ${m.displayName} (picks it)`)));
  const result = h('span.small', { role: 'status' });
  const button = h('button', { type: 'submit', 'data-action': 'tv-provider', ...needs('change') }, 'Set');
  const form = h('form.form-row', null, h('label', { for: select.id }, `${device} `), select, button, result);
  get(`/api/devices/${encodeURIComponent(device)}/tv-provider`, undefined, { quiet: true })
    .then((answer) => { select.value = answer.choice; })
    .catch(() => {});
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      const answer = await request('PUT', `/api/devices/${encodeURIComponent(device)}/tv-provider`, { body: { choice: select.value }, quiet: true });
      fill(result, badge('✓', answer.signsIn ? `Set: signs in as ${answer.username}.` : 'Set.', 'good'));
    } catch (error) {
      fill(result, badge('✗', error.message, 'bad'));
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

/** The card: one form per device the console's apps run on, offering the MVPDs of the apps on that device. */
export function tvProviderCard() {
  const body = h('div.stack', null, h('p.muted', null, 'Loading…'));
  get('/api/apps', undefined, { quiet: true }).then((data) => {
    const devices = new Map();
    for (const app of data.apps ?? []) {
      const device = (app.storageDomain ?? '').split('/')[0];
      if (!device) continue;
      const mvpds = devices.get(device) ?? new Map();
      for (const m of app.mvpds ?? []) mvpds.set(m.id, m);
      devices.set(device, mvpds);
    }
    fill(body, devices.size ? [...devices].map(([device, mvpds]) => row(device, [...mvpds.values()]))
      : h('p.muted', null, 'No apps run in this console.'));
  }).catch((error) => fill(body, badge('✗', error.message, 'bad')));
  return h('section.card', { 'aria-labelledby': 'tvp-heading' },
    h('h2', { id: 'tvp-heading' }, 'Apple TV Provider (Settings → TV Provider)'),
    h('p.muted.small', null, 'What the user does in the Apple dialog an app shows when its Programmer has an MVPD with Apple single sign-on. '
      + 'Signed in to a provider: the app signs in without a login page (and again after its own logout).'),
    body);
}

// "What if": enter a bundle ID, team and platform to see the device ID the SDK would compute and whether the app
// would share a sign-in with the apps already on the device, before shipping it.
import { h, fill, badge, code } from '../../lib/dom.js';
import { post } from '../../lib/api.js';
import { relationList } from './sso-map.js';

export function whatIfForm() {
  const bundle = h('input', { id: 'whatif-bundle', type: 'text', placeholder: 'com.example.newapp', required: true, spellcheck: 'false', autocomplete: 'off' });
  const team = h('input', { id: 'whatif-team', type: 'text', placeholder: 'TEAM1234', required: true, spellcheck: 'false', autocomplete: 'off' });
  const platform = h('select', { id: 'whatif-platform' }, h('option', { value: 'ios' }, 'iOS'), h('option', { value: 'tvos' }, 'tvOS'));
  const button = h('button.primary', { type: 'submit', 'data-action': 'whatif' }, 'Predict');
  const result = h('div.whatif-result', { id: 'whatif-result', role: 'status' },
    h('p.muted', null, 'Fill in an app to see its device ID and its single sign-on with the apps above.'));
  const form = h('form.form-row', null,
    h('label', null, 'Bundle ID ', bundle), h('label', null, 'Team ID ', team), h('label', null, 'Platform ', platform), button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!bundle.value.trim() || !team.value.trim()) {
      fill(result, badge('⚠', 'Enter both a bundle ID and a team ID.', 'warn'));
      return;
    }
    button.disabled = true;
    fill(result, h('p.muted', null, 'Predicting…'));
    try {
      const answer = await post('/api/devices/whatif', { bundleID: bundle.value.trim(), teamID: team.value.trim(), platform: platform.value }, { quiet: true });
      fill(result,
        h('dl.facts', null,
          h('dt', null, 'Device ID'), h('dd', null, code(answer.deviceID)),
          h('dt', null, 'Algorithm'), h('dd', null, answer.algorithm)),
        h('h4', null, 'With the apps on this device'), relationList(answer.relations ?? []));
    } catch (error) {
      fill(result, badge('✗', error.message, 'bad'), error.detail ? h('p.small', null, error.detail) : null);
    } finally {
      button.disabled = false;
    }
  });
  return h('section.card', { 'aria-labelledby': 'whatif-heading' },
    h('h3', { id: 'whatif-heading' }, 'What if another app were installed?'), form, result);
}

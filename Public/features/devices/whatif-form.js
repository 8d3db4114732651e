// "What if": enter a bundle ID, team and platform (and, for the SSO tech note's other rows, the AccessEnabler release
// and an iOS version) to see the device ID the SDK would compute and whether the app would share a sign-in with the
// apps already on the device, before shipping it.
import { h, fill, badge, code } from '../../lib/dom.js';
import { post } from '../../lib/api.js';
import { relationList } from './sso-map.js';
import { needs } from '../../lib/permissions.js';

export function whatIfForm() {
  const bundle = h('input', { id: 'whatif-bundle', type: 'text', placeholder: 'com.example.newapp', required: true, spellcheck: 'false', autocomplete: 'off' });
  const team = h('input', { id: 'whatif-team', type: 'text', placeholder: 'TEAM1234', required: true, spellcheck: 'false', autocomplete: 'off' });
  const platform = h('select', { id: 'whatif-platform' }, h('option', { value: 'ios' }, 'iOS'), h('option', { value: 'tvos' }, 'tvOS'));
  // The tech note's other rows: the app's AccessEnabler release, and the device on another iOS version (an upgrade)
  const release = h('select', { id: 'whatif-release' },
    h('option', { value: '1.8' }, '1.8 and later'), h('option', { value: '1.7' }, '1.7'));
  const os = h('input', { id: 'whatif-os', type: 'text', placeholder: 'this device\'s', inputmode: 'decimal', spellcheck: 'false', autocomplete: 'off', size: 8 });
  const button = h('button.primary', { type: 'submit', 'data-action': 'whatif', ...needs('change') }, 'Predict');
  const result = h('div.whatif-result', { id: 'whatif-result', role: 'status' },
    h('p.muted', null, 'Fill in an app to see its device ID and its single sign-on with the apps above.'));
  const form = h('form.form-row', null,
    h('label', null, 'Bundle ID ', bundle), h('label', null, 'Team ID ', team), h('label', null, 'Platform ', platform),
    h('label', null, 'AccessEnabler ', release), h('label', null, 'iOS version ', os), button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!bundle.value.trim() || !team.value.trim()) {
      fill(result, badge('⚠', 'Enter both a bundle ID and a team ID.', 'warn'));
      return;
    }
    button.disabled = true;
    fill(result, h('p.muted', null, 'Predicting…'));
    try {
      const body = { bundleID: bundle.value.trim(), teamID: team.value.trim(), platform: platform.value, sdkRelease: release.value };
      if (os.value.trim()) body.osVersion = os.value.trim();
      const answer = await post('/api/devices/whatif', body, { quiet: true });
      fill(result,
        answer.upgrade ? h('p.whatif-upgrade', { 'data-upgrade': 'true' }, badge('⚠', 'OS upgrade', 'warn'), ` ${answer.upgrade}`) : null,
        h('dl.facts', null,
          h('dt', null, 'Device ID'), h('dd', null, code(answer.deviceID)),
          h('dt', null, 'Algorithm'), h('dd', null, answer.algorithm),
          h('dt', null, 'Token storage'), h('dd', { 'data-storage': answer.storage }, answer.storage)),
        h('h3', null, 'With the apps on this device'), relationList(answer.relations ?? []));
    } catch (error) {
      fill(result, badge('✗', error.message, 'bad'), error.detail ? h('p.small', null, error.detail) : null);
    } finally {
      button.disabled = false;
    }
  });
  return h('section.card', { 'aria-labelledby': 'whatif-heading' },
    h('h2', { id: 'whatif-heading' }, 'What if another app were installed?'), form, result);
}

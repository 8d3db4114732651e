// The buttons that drive one demo app: start/stop, and the SDK calls a real app would make.
import { h, fill } from '../../lib/dom.js';
import { post } from '../../lib/api.js';
import { clockTime } from '../../lib/format.js';
import { needs } from '../../lib/permissions.js';

// getMetadata op codes (0 authN expiry, 1 authZ expiry of a resource, 2 device ID, 3 a user-metadata item).
const METADATA_KEYS = [
  ['0', 'Sign-in expiry (TTL_AUTHN)'], ['1', 'Authorization expiry of the resource (TTL_AUTHZ)'], ['2', 'Device ID (DEVICEID)'],
  ['3:userID', 'User metadata: userID'], ['3:upstreamUserID', 'User metadata: upstreamUserID'],
  ['3:householdID', 'User metadata: householdID'], ['3:zip', 'User metadata: zip'],
];

/** `getMetadata` arguments for a choice of the metadata select. */
function metadataArguments(choice, resource) {
  const [opCode, name] = choice.split(':');
  const args = { key: opCode };
  if (opCode === '1') Object.assign(args, { resource_id: resource, resource });
  if (opCode === '3') args.user_metadata_name = name;
  return args;
}

const CALLS = [
  { action: 'checkAuthentication', label: 'Check authentication', help: 'checkAuthentication(): is there a valid sign-in? No UI.' },
  { action: 'getAuthentication', label: 'Get authentication', help: 'getAuthentication(): sign in, showing the provider picker if needed.' },
  { action: 'getAuthorization', label: 'Get authorization', help: 'getAuthorization(resource): may the viewer watch the chosen resource?', needsResource: true },
  { action: 'checkPreauthorizedResources', label: 'Check preauthorized', help: 'checkPreauthorizedResources(all resources of the app).' },
  { action: 'getMetadata', label: 'Get metadata', help: 'getMetadata(key): the metadata chosen below.', needsKey: true },
  { action: 'getSelectedProvider', label: 'Selected provider?', help: 'getSelectedProvider(): which MVPD the SDK remembers.' },
  { action: 'logout', label: 'Log out', help: 'logout(): clears this app’s sign-in and tokens (shared storage too).' },
  { action: 'cancel', label: 'Cancel', help: 'setSelectedProvider(nil): cancels the picker or login; forgets the MVPD for this Programmer.' },
];

/**
 * The actions section. `getApp()` returns the app as last rendered (refreshes keep it current); `onApp(app)`
 * receives the app the server returns after start/stop; `status` is the card's status line (it outlives this section).
 */
export function actionsSection(app, getApp, onApp, status) {
  const id = encodeURIComponent(app.id);
  const say = (text) => fill(status, text);
  const resource = h('select', { 'data-field': 'resource', 'aria-label': 'Resource for getAuthorization' },
    (app.resources ?? []).map((r) => h('option', { value: r }, r)));
  const key = h('select', { 'data-field': 'metadata-key', 'aria-label': 'Metadata key' },
    METADATA_KEYS.map(([value, label]) => h('option', { value }, label)));

  async function lifecycle(button, verb) {
    button.disabled = true;
    try {
      const next = await post(`/api/apps/${id}/${verb}`);
      say(verb === 'start'
        ? `Started at ${clockTime(new Date().toISOString())}: the app called setRequestor.`
        : `Stopped at ${clockTime(new Date().toISOString())}: the app quit; its storage stays.`);
      if (next && next.id) onApp(next);
    } catch (error) {
      say(`${verb === 'start' ? 'Starting' : 'Stopping'} the app was refused: ${error.message}`);
      button.disabled = false;
    }
  }

  async function call(button, spec) {
    const current = getApp();
    let method = spec.action;
    let args = {};
    if (spec.action === 'cancel') {
      method = 'setSelectedProvider';
      args = { mvpd: null };
    } else if (spec.needsResource) {
      args = { resource: resource.value };
    } else if (spec.action === 'checkPreauthorizedResources') {
      args = { resources: (current.resources ?? []).join(',') };
    } else if (spec.needsKey) {
      args = metadataArguments(key.value, resource.value);
    }
    button.disabled = true;
    try {
      await post(`/api/apps/${id}/call`, { method, arguments: args });
      const shown = Object.entries(args).map(([k, v]) => `${k}: ${v === null ? 'nil' : `"${v}"`}`).join(', ');
      say(`Called ${method}(${shown}) at ${clockTime(new Date().toISOString())}: watch the steps and callbacks.`);
    } catch (error) {
      say(`${method} was refused: ${error.message}`);
    } finally {
      button.disabled = false;
    }
  }

  const running = app.running;
  // Only the move that changes something is offered: a running app cannot be started again, nor a stopped one stopped.
  const start = h('button', { class: running ? null : 'primary', type: 'button', 'data-action': 'start', ...needs('change'), disabled: running,
    title: running ? 'The app is running' : 'Launch the app: it calls setRequestor' }, '▶ Start app');
  const stop = h('button', { type: 'button', 'data-action': 'stop', ...needs('change'), disabled: !running,
    title: running ? 'Quit the app (its storage stays)' : 'The app is not running' }, '■ Stop app');
  start.addEventListener('click', () => lifecycle(start, 'start'));
  stop.addEventListener('click', () => lifecycle(stop, 'stop'));
  const buttons = CALLS.map((spec) => {
    const button = h('button', { type: 'button', 'data-action': spec.action, ...needs('change'), title: spec.help, class: spec.action === 'logout' || spec.action === 'cancel' ? 'quiet-danger' : null }, spec.label);
    button.addEventListener('click', () => call(button, spec));
    return button;
  });
  return h('div.actions', null,
    h('div.action-row', null, start, stop,
      running ? null : h('span.muted.small', null, 'The app is not running: press Start before calling the SDK.')),
    h('div.action-row', null, buttons),
    h('div.action-row.args', null,
      h('label', null, 'Resource ', resource), h('label', null, 'Metadata key ', key)));
}

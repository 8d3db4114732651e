// What the app is waiting for from a person: pick a TV provider, sign in at the MVPD's page, or enter a
// registration code on a second screen (tvOS).
import { h, countdown } from '../../lib/dom.js';
import { post, overview } from '../../lib/api.js';
import { toast } from '../../lib/ui.js';
import { needs } from '../../lib/permissions.js';

const DEMO_USERS = 'alice / alice123, bob / bob123, carol / carol123, dave / dave123, erin / erin123';

function picker(app, mvpds) {
  const choose = async (button, mvpd) => {
    button.disabled = true;
    try {
      await post(`/api/apps/${encodeURIComponent(app.id)}/call`, { method: 'setSelectedProvider', arguments: { mvpd: mvpd.id } });
      toast(`${app.name}: chose ${mvpd.displayName}.`, { kind: 'success', timeout: 3000 });
    } catch {
      button.disabled = false;
    }
  };
  return h('div.pending.picker', { role: 'group', 'aria-label': 'Provider picker' },
    h('h3', null, '☰ The app shows its TV provider picker'),
    h('p.muted', null, 'Choose the provider a viewer would tap, or press “Cancel” below (setSelectedProvider(nil)).'),
    h('div.mvpd-choices', null, mvpds.map((mvpd) => {
      const button = h('button.mvpd-choice', { type: 'button', 'data-mvpd': mvpd.id, ...needs('change'), title: `setSelectedProvider("${mvpd.id}")` },
        mvpd.logoURL ? h('img', { src: mvpd.logoURL, alt: '', loading: 'lazy', onerror: (e) => e.target.remove() }) : null,
        h('span', null, mvpd.displayName), mvpd.id.toLowerCase() !== mvpd.displayName.toLowerCase() ? h('small.muted', null, mvpd.id) : null,
        signInShape(app, mvpd.id) ? h('small.muted.sign-in-shape', null, signInShape(app, mvpd.id)) : null);
      button.addEventListener('click', () => choose(button, mvpd));
      return button;
    })));
}

/** The shape of an MVPD's sign-in pages ("SAML POST · j_username/j_password · Resume page"), from the app's MVPD list. */
function signInShape(app, mvpdID) {
  return (app.mvpds ?? []).find((m) => m.id === mvpdID)?.signIn ?? null;
}

function login(app, loginURL) {
  const username = h('input', { type: 'text', 'data-field': 'username', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'MVPD username', placeholder: 'username' });
  const password = h('input', { type: 'password', 'data-field': 'password', autocomplete: 'off', 'aria-label': 'MVPD password', placeholder: 'password' });
  const submit = h('button.primary', { type: 'submit', 'data-action': 'login', ...needs('change') }, 'Sign in');
  const form = h('form.login-form', null,
    h('label', null, 'Username ', username), h('label', null, 'Password ', password), submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      await post(`/api/apps/${encodeURIComponent(app.id)}/login`, { username: username.value, password: password.value });
      toast(`${app.name}: signing in as ${username.value}…`, { kind: 'success', timeout: 3000 });
    } catch {
      // The API layer showed why (for example the MVPD page refused the password); the form stays for another try.
    } finally {
      submit.disabled = false;
    }
  });
  let mvpdID = null;
  try {
    mvpdID = new URL(loginURL).searchParams.get('mso_id');
  } catch {
    // not a URL the browser can parse: no shape to name
  }
  const shape = mvpdID ? signInShape(app, mvpdID) : null;
  return h('div.pending.login', { role: 'group', 'aria-label': 'MVPD login' },
    h('h3', null, 'The app waits at the MVPD’s sign-in page'),
    shape ? h('p.small.muted.sign-in-shape', null, `${mvpdID}’s pages: ${shape}. The app’s web view walks them.`) : null,
    h('p.muted', null, 'Sign in here and the console submits the page the app’s web view shows.'),
    form,
    h('p.hint', null, 'Demo subscribers: ', DEMO_USERS, '.'),
    loginURL ? browserLogin(app, loginURL) : null);
}

/**
 * Signing in on the MVPD's real page in this browser: the page ends by sending the browser to the app's address
 * (`adobepass://ios.app` or the app's own scheme), which a browser cannot open, so the person hands it back here
 * and the console gives it to the app (handleExternalURL), as the system would on a phone.
 */
function browserLogin(app, loginURL) {
  let redirectURL = 'adobepass://ios.app';
  try {
    redirectURL = new URL(loginURL).searchParams.get('redirect_url') || redirectURL;
  } catch {
    // not a URL the browser can parse: keep the SDK's default redirect
  }
  const back = h('button', { type: 'button', 'data-action': 'return-to-app', ...needs('change'), title: `handleExternalURL("${redirectURL}")` },
    'I signed in there: return to the app');
  back.addEventListener('click', async () => {
    back.disabled = true;
    try {
      await post(`/api/apps/${encodeURIComponent(app.id)}/call`, { method: 'handleExternalURL', arguments: { url: redirectURL } });
      toast(`${app.name}: back in the app; it asks the backend for the sign-in.`, { kind: 'success', timeout: 3000 });
    } catch {
      back.disabled = false;
    }
  });
  return h('div.browser-login', null,
    h('p', null, h('a', { href: loginURL, target: '_blank', rel: 'noopener', 'data-action': 'open-login' }, 'Open the MVPD login page in this browser ↗'),
      h('span.muted', null, ' (a second window).')),
    h('p.small.muted', null, 'After you sign in there, the page tries to open the app (', h('code', null, redirectURL),
      '), which a browser cannot do, so nothing seems to happen. Come back and press: '), back);
}

function regcode(app, reg) {
  const link = h('a', { href: reg.activationURL ?? '#', target: '_blank', rel: 'noopener' }, reg.activationURL ?? 'the backend’s activation page');
  if (!reg.activationURL) {
    overview().then((o) => {
      if (!o.backendURL) return;
      link.href = `${o.backendURL.replace(/\/$/, '')}/activate`;
      link.textContent = link.href;
    }).catch(() => {});
  }
  return h('div.pending.regcode', { role: 'group', 'aria-label': 'Registration code' },
    h('h3', null, 'Second-screen activation: the app shows a code'),
    h('p', null, 'Code ', h('strong.regcode-value', null, reg.code), reg.expires ? [' · ', countdown(reg.expires)] : null),
    h('p', null, 'Enter it at ', link, ' (sign in there as a demo subscriber), or press “Cancel” to stop waiting.'));
}

/** The pending panel of `app`, or null when it waits for nobody. */
export function pendingPanel(app) {
  const p = app.pending ?? {};
  const parts = [];
  if (p.providerDialog) parts.push(picker(app, p.providerDialog));
  if (p.loginURL) parts.push(login(app, p.loginURL));
  if (p.regcode) parts.push(regcode(app, p.regcode));
  return parts.length ? h('div.pending-box', null, parts) : null;
}

// Named operators: the personal token kept for this tab, the sign-in form when the console asks for one, and
// "signed in as NAME (role)" in the header.
import { h, fill } from './dom.js';

export const TOKEN_KEY = 'passconsole.accessToken';

/** The token this tab signed in with (or opened with `?token=`), or null. */
export const storedToken = () => sessionStorage.getItem(TOKEN_KEY);

/** Replace the banner with a sign-in form: `message` says why (none yet, revoked, wrong). Signing in reloads the page. */
export function signInForm(message) {
  const el = document.getElementById('banner');
  if (el.dataset.reason === 'sign-in') return;
  const input = h('input', { type: 'password', id: 'sign-in-token', name: 'token', autocomplete: 'off', required: true,
    placeholder: 'pco_…', 'aria-label': 'Personal token', size: 40 });
  const form = h('form.sign-in', { id: 'sign-in' },
    h('strong', null, 'Sign in'), ' ', h('span', null, message), ' ',
    input, ' ', h('button', { type: 'submit' }, 'Sign in'),
    h('p.hint', null, 'Your personal token comes from whoever runs the console (`passconsole operator add YOUR-NAME --role viewer|operator`).'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    sessionStorage.setItem(TOKEN_KEY, token);
    location.reload();
  });
  fill(el, form);
  el.dataset.reason = 'sign-in';
  el.hidden = false;
}

/** Forget this tab's token and show the sign-in form again. */
export function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  location.reload();
}

/** `signed in as alice (viewer)` and a Sign out button in the header, from `GET /api/me`; nothing without operators. */
export function paintSignedIn(me) {
  const el = document.getElementById('ctx-operator');
  if (!el) return;
  if (!me?.signInRequired || !me.name) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  const out = h('button.ghost', { type: 'button', 'data-action': 'sign-out', title: 'Forget the token in this tab' }, 'Sign out');
  out.addEventListener('click', signOut);
  fill(el, 'Signed in as ', h('strong', null, me.name), ` (${me.role})`, ' ', out);
  el.title = me.role === 'viewer' ? 'Viewer: reads everything with personal data redacted; changes nothing.' : 'Operator: may also clear, import, undo, replay and reveal.';
  el.hidden = false;
  document.body.dataset.role = me.role;
}

// What the signed-in operator's role may do, judged in one place for every page. A control that changes something
// is marked with the action it needs (`h('button', { ...needs('clear') }, …)`, the console's action names, as in
// `GET /api/me`'s `may`); once the page knows who is signed in (`applyRole(me)`), every marked control the role may
// not use is disabled with a tooltip saying so, and stays so as views draw new controls or re-enable their own.
// Without named operators (`may` allows everything) nothing changes.

/** The console's actions a control can need, in the words of its refusal (`ConsoleAction.words` on the server). */
const ACTIONS = {
  clear: 'clear storage',
  import: 'import storage',
  undo: 'undo storage changes',
  replay: 'replay sessions',
  reveal: 'reveal personal data or live tokens',
  change: 'change anything (apps, sign-ins, devices)',
};

/** `GET /api/me`: `{name, role, may}`; null until known. */
let signedIn = null;

/** The attribute marking a control as needing `action` (one of ACTIONS: a typo fails at once, not silently). */
export function needs(action) {
  if (!(action in ACTIONS)) throw new Error(`No console action "${action}"`);
  return { 'data-needs': action };
}

/** Whether the signed-in role may do `action`: true until `GET /api/me` says otherwise, and with no operators. */
export function may(action) {
  return signedIn?.may?.[action] ?? true;
}

/** Why the signed-in role may not do `action`, as the control's tooltip says it. */
export function refusal(action) {
  const role = signedIn?.role ?? 'this role';
  const who = signedIn?.name ? `${signedIn.name} is a ${role}: ` : '';
  return `${who}a ${role} may not ${ACTIONS[action] ?? action}. Ask someone with the operator role.`;
}

/** Disable `el` (marked `data-needs`) when the role may not, with the reason as its tooltip; undo that when it may. */
function judge(el) {
  const action = el.dataset.needs;
  const label = el.closest('label');
  if (may(action)) {
    if (el.dataset.forbidden === undefined) return;
    delete el.dataset.forbidden;
    el.disabled = el.dataset.allowedDisabled === 'true';
    el.title = el.dataset.allowedTitle ?? '';
    if (label?.dataset.allowedTitle !== undefined) label.title = label.dataset.allowedTitle;
    el.removeAttribute('aria-disabled');
    return;
  }
  if (el.dataset.forbidden === undefined) {
    el.dataset.allowedTitle = el.title;
    el.dataset.allowedDisabled = String(Boolean(el.disabled));
    if (label && label.dataset.allowedTitle === undefined) label.dataset.allowedTitle = label.title;
  }
  el.dataset.forbidden = action;
  el.disabled = true;
  el.setAttribute('aria-disabled', 'true');
  el.title = refusal(action);
  if (label) label.title = el.title;
}

function judgeWithin(node) {
  if (!(node instanceof Element)) return;
  if (node.matches('[data-needs]')) judge(node);
  for (const el of node.querySelectorAll('[data-needs]')) judge(el);
}

let watching = false;

/** Watches the page: new controls are judged as they are drawn, and a forbidden one a view re-enables is disabled again. */
function watch() {
  if (watching) return;
  watching = true;
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'childList') record.addedNodes.forEach(judgeWithin);
      else if (record.target.dataset?.forbidden !== undefined && !record.target.disabled) record.target.disabled = true;
    }
  }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ['disabled'] });
  // Nothing forbidden is acted on, even if something got past `disabled` (a form submitted by Enter in a field).
  for (const type of ['click', 'submit']) {
    document.addEventListener(type, (event) => {
      const target = event.target instanceof Element ? event.target : null;
      const forbidden = type === 'submit' ? target?.querySelector('[data-forbidden]') : target?.closest('[data-forbidden]');
      if (!forbidden) return;
      event.preventDefault();
      event.stopImmediatePropagation();
    }, true);
  }
}

/** What `GET /api/me` said: judges every marked control on the page now and later. `null` (the call failed: not signed
 * in yet, or the console briefly unreachable) keeps what was known. */
export function applyRole(me) {
  if (me) signedIn = me;
  // Only a role that may not do something needs the page watched (the single-user console's live pages add rows fast).
  if (Object.values(signedIn?.may ?? {}).some((allowed) => !allowed)) watch();
  judgeWithin(document.body);
}

// Shared feedback: toasts, the error banner, the confirmation dialog and the undo toast.
import { h, fill } from './dom.js';
import { needs } from './permissions.js';

const ICONS = { info: 'ℹ', success: '✓', error: '✗', warning: '⚠' };

/** How long a toast stays, by kind: errors longest (they carry what to do), but every toast fades. */
export const TOAST_MS = { info: 6000, success: 6000, warning: 10000, error: 15000 };

/**
 * A toast. It fades after `timeout` ms (by default `TOAST_MS` of its kind), later while the pointer or focus is on
 * it; × dismisses it at once. `action` names what it is about (`POST /api/apps/news-ios/login`): a newer toast of the
 * same action replaces it, and `resolveToasts(action)` removes it when that action later succeeds.
 */
export function toast(message, { kind = 'info', detail = null, timeout, id = null, actions = [], action = null, near = null } = {}) {
  const region = document.getElementById('toasts');
  if (id) document.getElementById(id)?.remove();
  if (action) resolveToasts(action, { all: true });
  // Fades out (style.css: .toast.leaving), then goes.
  const close = () => {
    clearTimeout(timer);
    el.classList.add('leaving');
    setTimeout(() => el.remove(), 250);
  };
  const el = h('div.toast', { class: `toast-${kind}`, id, role: kind === 'error' ? 'alert' : 'status', 'data-kind': kind },
    h('span.icon', { 'aria-hidden': 'true' }, ICONS[kind] ?? ''),
    h('div.toast-text', null, h('strong', null, message), detail ? h('p', null, detail) : null),
    actions,
    h('button.ghost', { type: 'button', 'aria-label': 'Dismiss', title: 'Dismiss', 'data-action': 'dismiss-toast', onclick: close }, '×'));
  if (action) el.dataset.toastAction = action;
  const ms = timeout ?? TOAST_MS[kind] ?? TOAST_MS.info;
  let timer = null;
  const schedule = (delay) => {
    clearTimeout(timer);
    timer = ms ? setTimeout(close, delay) : null;
  };
  // Someone reading it (pointer or keyboard on it) keeps it; it fades a little after they leave.
  el.addEventListener('mouseenter', () => clearTimeout(timer));
  el.addEventListener('focusin', () => clearTimeout(timer));
  el.addEventListener('mouseleave', () => schedule(Math.min(ms, 3000)));
  el.addEventListener('focusout', () => schedule(Math.min(ms, 3000)));
  // What the toast reports on — `near` (the form's parts), or else what the user just worked on (the focused
  // control's row, form or dialog) — so the toast never covers it.
  const anchors = near ? [near].flat() : [document.activeElement?.closest?.('form, dialog, .form-row, .card')];
  region.append(el);
  keepClearOf(region, anchors.filter(Boolean));
  schedule(ms);
  return el;
}

const TOAST_CORNERS = ['', 'toasts-top', 'toasts-left', 'toasts-top toasts-left'];

/** Moves the toasts to the corner where they cover least of `anchors` (bottom right when it covers none). */
function keepClearOf(region, anchors) {
  const covered = () => {
    const r = region.getBoundingClientRect();
    return anchors.filter((a) => a.isConnected).reduce((sum, anchor) => {
      const a = anchor.getBoundingClientRect();
      const w = Math.min(r.right, a.right) - Math.max(r.left, a.left), h = Math.min(r.bottom, a.bottom) - Math.max(r.top, a.top);
      return sum + (w > 0 && h > 0 ? w * h : 0);
    }, 0);
  };
  const place = (corner) => {
    region.classList.remove('toasts-top', 'toasts-left');
    if (corner) region.classList.add(...corner.split(' '));
  };
  let best = null;
  for (const corner of TOAST_CORNERS) {
    place(corner);
    const area = covered();
    if (area === 0) return;
    if (!best || area < best.area) best = { corner, area };
  }
  place(best.corner);
}

/** Removes the error toasts of `action` (it has since succeeded); with `all`, its toasts of any kind. */
export function resolveToasts(action, { all = false } = {}) {
  for (const el of document.querySelectorAll('#toasts .toast')) {
    if (el.dataset.toastAction === action && (all || el.dataset.kind === 'error')) el.remove();
  }
}

/** Removes every toast but the Undo offer (a page change: what they said was about the page left behind). */
export function dismissToasts() {
  for (const el of document.querySelectorAll('#toasts .toast')) {
    if (el.id !== 'undo-toast') el.remove();
  }
}

/** Show an API or network error: its message, and its detail when there is one. */
export function showError(error, context, { action = null } = {}) {
  const message = error?.message || String(error);
  toast(context ? `${context}: ${message}` : message, { kind: 'error', detail: error?.detail ?? null, action });
}

/** A banner across the top for conditions that last (no access token, console unreachable). */
export function banner(text, detail) {
  const el = document.getElementById('banner');
  delete el.dataset.reason;
  if (!text) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  fill(el, h('span.icon', { 'aria-hidden': 'true' }, '⚠'), ' ', h('strong', null, text), detail ? ` ${detail}` : null);
  el.hidden = false;
}

/**
 * A toast with an Undo button (`#undo-toast`), kept for 30 s. `onUndo` runs once; the toast closes after it.
 */
export function undoToast(message, detail, onUndo, { near = null } = {}) {
  const undo = h('button', { type: 'button', 'data-action': 'undo', ...needs('undo') }, '↶ Undo');
  const el = toast(message, { kind: 'success', detail, id: 'undo-toast', timeout: 30000, actions: [undo], near });
  undo.addEventListener('click', async () => {
    undo.disabled = true;
    try {
      await onUndo();
      el.remove();
    } catch (error) {
      undo.disabled = false;
      showError(error, 'Undo failed');
    }
  });
  return el;
}

/**
 * The confirmation dialog (`dialog#confirm-dialog`). `content` is nodes; resolves true on Confirm, false on
 * Cancel or Esc.
 */
export function confirmDialog({ title, content, confirmLabel = 'Confirm', danger = true }) {
  const dialog = document.getElementById('confirm-dialog');
  if (dialog.open) return Promise.resolve(false); // one question at a time
  dialog.querySelector('#confirm-title').textContent = title;
  fill(dialog.querySelector('.confirm-content'), content);
  const confirm = dialog.querySelector('[data-action="confirm"]');
  const cancel = dialog.querySelector('[data-action="cancel-dialog"]');
  confirm.textContent = confirmLabel;
  confirm.classList.toggle('danger', danger);
  return new Promise((resolve) => {
    const finish = (answer) => {
      confirm.removeEventListener('click', onConfirm);
      cancel.removeEventListener('click', onCancel);
      dialog.removeEventListener('close', onClose);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const onConfirm = () => finish(true);
    const onCancel = () => finish(false);
    const onClose = () => finish(false);
    confirm.addEventListener('click', onConfirm);
    cancel.addEventListener('click', onCancel);
    dialog.addEventListener('close', onClose);
    if (!dialog.open) dialog.showModal();
    cancel.focus();
  });
}

/** A bulleted list for dialogs, with a line saying so when it is empty. */
export function itemList(items, emptyText) {
  if (!items?.length) return h('p.muted', null, emptyText);
  return h('ul.item-list', null, items.map((item) => h('li', null, item)));
}

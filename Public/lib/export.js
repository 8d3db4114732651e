// Exports and personal data: every export replaces user IDs, household IDs, usernames and emails by stable hashes
// and removes ZIP codes, unless the operator keeps them on purpose — a choice confirmed here and recorded in the
// console's audit log.
import { h } from './dom.js';
import { download } from './api.js';
import { confirmDialog } from './ui.js';
import { needs } from './permissions.js';

/** A "with personal data" checkbox for an export toolbar: `{el, checked}`; `checked` sets it (a redrawn pane). */
export function revealToggle(id, checked = false) {
  const box = h('input', { type: 'checkbox', id, 'data-action': 'reveal-personal', ...needs('reveal') });
  box.checked = checked;
  const el = h('label.reveal-personal.small', {
    title: 'Keep user IDs, household IDs, usernames, emails and ZIP codes in the file (asks first; the audit log records it)',
  }, box, ' with personal data');
  return { el, get checked() { return box.checked; } };
}

/**
 * Download an export and confirm it in a toast (see `download`). With `revealPersonal`, ask first; the file then
 * keeps personal data (`reveal=personal`).
 */
export async function saveExport(path, query, fallbackName, { revealPersonal = false } = {}) {
  if (revealPersonal) {
    const ok = await confirmDialog({
      title: 'Export with personal data?',
      confirmLabel: 'Export with personal data',
      content: [
        h('p', null, '⚠ The file will keep user IDs, household IDs, usernames, email addresses and ZIP codes as recorded.'),
        h('p', null, 'The console’s audit log records this export. For a ticket, the redacted export is usually enough: one user’s rows still share one hash.'),
      ],
    });
    if (!ok) return null;
  }
  return download(path, revealPersonal ? { ...(query ?? {}), reveal: 'personal' } : query, fallbackName);
}

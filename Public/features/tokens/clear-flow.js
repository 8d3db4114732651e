// Clearing storage safely: a dry run lists exactly what would go and which apps share it, the operator confirms,
// the server keeps a backup, and a toast offers Undo.
import { h, code } from '../../lib/dom.js';
import { post, download } from '../../lib/api.js';
import { confirmDialog, undoToast, toast, itemList } from '../../lib/ui.js';

/** `{domain, requestorID?, mvpdID?, resource?}` from a clear button's `data-clear-*` attributes. */
export function targetOf(button) {
  const d = button.dataset;
  const target = { domain: d.clearDomain };
  if (d.clearRequestor) target.requestorID = d.clearRequestor;
  if (d.clearMvpd) target.mvpdID = d.clearMvpd;
  if (d.clearResource) target.resource = d.clearResource;
  return target;
}

function describe(target) {
  const parts = [];
  if (target.resource) parts.push(`the authorization for ${target.resource}`);
  if (target.requestorID) parts.push(`Programmer ${target.requestorID}`);
  if (target.mvpdID) parts.push(`MVPD ${target.mvpdID}`);
  return parts.length ? parts.join(' · ') : 'everything';
}

/** Run the whole clear flow for `target`; `onChanged()` after storage changed (clear or undo). */
export async function clearFlow(target, onChanged) {
  const preview = await post('/api/storage/clear', { ...target, dryRun: true });
  const removed = preview.removed ?? [];
  const sharedBy = preview.sharedBy ?? [];
  const effects = preview.effects ?? [];
  const ok = await confirmDialog({
    title: `Clear ${describe(target)} in ${target.domain}?`,
    confirmLabel: removed.length ? `Clear ${removed.length} item${removed.length === 1 ? '' : 's'}` : 'Clear',
    content: [
      h('p', null, 'This removes:'),
      itemList(removed, 'Nothing is stored there: nothing would be removed.'),
      h('p', null, sharedBy.length > 1 ? '⚠ These apps share this storage and lose it too:' : 'Apps that use this storage:'),
      itemList(sharedBy.map((id) => code(id)), 'No app on this device uses it.'),
      effects.length ? [h('p', null, 'What the apps will do:'), itemList(effects)] : null,
      h('p.muted.small', null, 'A backup is kept: you can undo right after. Apps notice on their next SDK call.'),
    ],
  });
  if (!ok) return;
  const result = await post('/api/storage/clear', { ...target, dryRun: false });
  onChanged();
  const gone = result.removed ?? [];
  if (!result.backupID) {
    toast(`Cleared: ${gone.length ? gone.join('; ') : 'nothing was stored there'}.`, { kind: 'success' });
    return;
  }
  undoToast(`Cleared ${gone.length} item${gone.length === 1 ? '' : 's'} in ${target.domain}.`, gone.slice(0, 4).join('; ') + (gone.length > 4 ? '; …' : ''), async () => {
    undoneToast(await post('/api/storage/undo', { backupID: result.backupID }));
    onChanged();
  });
}

/**
 * Say what an undo did: what came back, and what was kept because it changed after the clear or import (a newer
 * token an app stored meanwhile), with why. The audit log holds the same sentence.
 */
export function undoneToast(result) {
  const items = result.items ?? [];
  const restored = items.filter((i) => i.action === 'restored');
  const removed = items.filter((i) => i.action === 'removed');
  const kept = items.filter((i) => i.action === 'kept');
  const counts = [
    `${restored.length} restored`,
    removed.length ? `${removed.length} removed again` : null,
    kept.length ? `${kept.length} kept as they are now` : null,
  ].filter(Boolean).join(', ');
  const el = toast(`Undone in ${(result.restored ?? []).join(', ') || 'the storage'}: ${counts}.`, {
    kind: kept.length ? 'warning' : 'success', id: 'undone-toast', timeout: kept.length ? 20000 : 6000,
    detail: kept.length ? 'Kept, not overwritten:' : null,
  });
  if (kept.length) {
    el.querySelector('.toast-text').append(h('ul.item-list.undo-kept', null,
      kept.map((i) => h('li', { 'data-undo-action': 'kept' }, i.item, h('span.muted', null, ` — ${i.reason}`)))));
  }
  return el;
}

/** Export a domain; with `reveal`, warn first (the file holds live tokens; the audit log records the export). */
export async function exportDomain(domain, reveal) {
  if (reveal) {
    const ok = await confirmDialog({
      title: 'Export with live tokens?',
      confirmLabel: 'Export live tokens',
      content: [
        h('p', null, '⚠ The file will contain working sign-in and authorization tokens for ', code(domain), '. Anyone with the file can use them until they expire.'),
        h('p', null, 'It also keeps personal data: a sign-in token carries the user’s ID, and user metadata (household ID, ZIP code) is kept as stored. The redacted export replaces them.'),
        h('p', null, 'The console’s audit log records this export. Prefer the redacted export for tickets.'),
      ],
    });
    if (!ok) return;
  }
  const safe = domain.replace(/[^A-Za-z0-9._-]+/g, '_');
  await download('/api/storage/export', { domain, reveal: String(reveal) }, `storage-${safe}${reveal ? '-LIVE' : ''}.json`);
}

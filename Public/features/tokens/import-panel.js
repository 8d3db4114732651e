// Import a storage file: choose it, see a dry run (added / overwritten / skipped / rejected, with reasons, and every
// token the target's apps will refuse — device ID, issuer, TTL, storage version — flagged), then apply it in one step
// with a backup and Undo. Refused tokens are left out unless the operator asks for them. A bad file changes nothing.
import { h, fill, badge, code } from '../../lib/dom.js';
import { request, post, overview } from '../../lib/api.js';
import { undoToast, toast } from '../../lib/ui.js';
import { undoneToast } from './clear-flow.js';
import { needs } from '../../lib/permissions.js';

const ACTIONS = {
  added: { icon: '+', word: 'Added', cls: 'ok' },
  overwritten: { icon: '↻', word: 'Overwritten', cls: 'warn' },
  skipped: { icon: '–', word: 'Skipped', cls: 'neutral' },
  rejected: { icon: '✗', word: 'Rejected', cls: 'bad' },
  refused: { icon: '⊘', word: 'Will be refused', cls: 'bad' },
};

/** The panel; `onChanged()` after an apply or undo. Returns `{el, setDomains(domains)}`. */
export function importPanel(onChanged) {
  let file = null;
  let generation = 0;
  const fileInput = h('input', { type: 'file', id: 'import-file', ...needs('import') });
  const domainSelect = h('select', { id: 'import-domain', ...needs('import') });
  const policySelect = h('select', { id: 'import-policy', ...needs('import') },
    h('option', { value: 'overwrite' }, 'Overwrite what is there'),
    h('option', { value: 'skip' }, 'Keep what is there (skip)'),
    h('option', { value: 'fail' }, 'Overwrite, but stop if any item is rejected'));
  const includeRefused = h('input', { type: 'checkbox', id: 'import-include-refused', ...needs('import') });
  const message = h('div.import-message', { id: 'import-message', role: 'alert' });
  const preview = h('div.import-preview', { id: 'import-preview' });
  const apply = h('button.primary', { type: 'button', 'data-action': 'apply-import', ...needs('import'), disabled: true }, 'Apply import');

  const query = (dryRun) => ({
    domain: domainSelect.value, policy: policySelect.value, dryRun: String(dryRun),
    includeRefused: includeRefused.checked ? 'true' : undefined,
  });
  const send = (dryRun) => request('POST', '/api/storage/import', { body: file, query: query(dryRun), quiet: true });

  function showError(error) {
    preview.replaceChildren();
    apply.disabled = true;
    const title = { invalid_import: 'This file cannot be imported', import_rejected: 'The import stops: an item is rejected' }[error.code] ?? 'Import failed';
    fill(message, badge('✗', title, 'bad'), ' ',
      h('strong', null, error.message), error.detail ? h('p.small', null, error.detail) : null,
      /nothing (was )?changed/i.test(`${error.message} ${error.detail ?? ''}`) ? null : h('p.small.muted', null, 'Nothing was changed.'));
  }

  function renderPreview(result) {
    const s = result.summary ?? {};
    const changes = result.changes ?? [];
    fill(preview,
      h('p', null, `${result.applied ? 'Imported' : 'Would import'} a ${result.format} file: `,
        Object.entries(ACTIONS).map(([key, a], i) => [i ? ' · ' : '', badge(a.icon, `${s[key] ?? 0} ${a.word.toLowerCase()}`, a.cls)])),
      refusalNote(result),
      changes.length
        ? h('table.grid.compact', null,
          h('thead', null, h('tr', null, ['What happens', 'Programmer', 'MVPD', 'Item', 'Domain', 'Why'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', null, changes.map((c) => {
            const a = ACTIONS[c.action] ?? { icon: '?', word: c.action, cls: 'neutral' };
            return h('tr', { 'data-action-kind': c.action, 'data-refused-by': c.refusedBy ?? null },
              h('td', null, badge(a.icon, a.word, a.cls)), h('td', null, c.requestorID ?? '—'), h('td', null, c.mvpdID ?? '—'),
              h('td', null, c.item), h('td', null, code(c.domain)),
              h('td', null, c.refusal ? h('strong.refusal', null, `⚠ ${c.refusal}`) : null, c.refusal && c.reason ? h('br') : null, c.reason ?? ''));
          })))
        : h('p.muted', null, 'The file holds nothing to import.'));
  }

  /** What happens to the tokens the target's apps will refuse: left out (the default) or imported on request. */
  function refusalNote(result) {
    const n = result.refused ?? 0;
    const judged = result.judgedFor ?? [];
    if (!n) {
      return h('p.muted.small', { id: 'import-judged' }, judged.length
        ? `Every token was judged as ${judged.join(', ')} will judge it (device ID, issuer, time to live, storage version): none will be refused.`
        : `No app is known to read ${domainSelect.value}, so the device binding was not checked.`);
    }
    const tokens = `${n} token${n === 1 ? '' : 's'}`;
    return h('p.import-refusals', { id: 'import-refusals' }, badge('⚠', `${tokens} will be refused`, 'bad'), ' ',
      result.includesRefused
        ? `by the apps that read ${domainSelect.value}: imported anyway, as asked. The apps will not use them (see each row).`
        : `by the apps that read ${domainSelect.value} (see each row): ${result.applied ? 'they were' : 'they will be'} left out. `
          + 'Tick “Import refused tokens too” to bring them anyway.');
  }

  async function dryRun() {
    const mine = ++generation;
    apply.disabled = true;
    message.replaceChildren();
    if (!file) {
      fill(preview, h('p.muted', null, 'Choose a storage file (an export from this console, or a storage file from a device folder) to see what would change.'));
      return;
    }
    if (!domainSelect.value) {
      fill(message, 'Choose the storage to import into.');
      return;
    }
    fill(preview, h('p.muted', null, `Checking ${file.name}…`));
    try {
      const result = await send(true);
      if (mine !== generation) return;
      renderPreview(result);
      const s = result.summary ?? {};
      apply.disabled = !((s.added ?? 0) + (s.overwritten ?? 0));
      if (apply.disabled) {
        fill(message, (result.refused ?? 0) && !includeRefused.checked
          ? 'Nothing would change: every token is one the apps there will refuse. Tick “Import refused tokens too” to import them anyway.'
          : 'Nothing would change with this policy, so there is nothing to apply.');
      }
    } catch (error) {
      if (mine === generation) showError(error);
    }
  }

  apply.addEventListener('click', async () => {
    apply.disabled = true;
    const mine = ++generation;
    try {
      const result = await send(false);
      renderPreview(result);
      onChanged();
      const s = result.summary ?? {};
      const refused = result.refused ?? 0;
      const text = `Imported into ${domainSelect.value}: ${s.added ?? 0} added, ${s.overwritten ?? 0} overwritten`
        + (!refused ? '.' : result.includesRefused ? `; ${refused} the apps there will refuse, imported as asked.` : `; ${refused} the apps there would refuse, left out.`);
      if (result.backupID) {
        undoToast(text, 'A backup was taken before the import.', async () => {
          undoneToast(await post('/api/storage/undo', { backupID: result.backupID }));
          onChanged();
          if (mine === generation) dryRun();
        }, { near: formParts });
      } else {
        toast(text, { kind: 'success', near: formParts });
      }
    } catch (error) {
      showError(error);
    }
  });
  fileInput.addEventListener('change', () => {
    file = fileInput.files?.[0] ?? null;
    dryRun();
  });
  domainSelect.addEventListener('change', dryRun);
  policySelect.addEventListener('change', dryRun);
  includeRefused.addEventListener('change', dryRun);

  // The size limit as the server words it (one formatter, on the server).
  const limit = h('span', { id: 'import-limit' });
  overview().then((data) => { if (data.uploadLimit) limit.textContent = ` Files up to ${data.uploadLimit}.`; }).catch(() => {});
  // The parts of the form a toast about the import must not cover.
  const formParts = [];
  const el = h('section.card.import-panel', { 'aria-labelledby': 'import-heading' },
    h('h2', { id: 'import-heading' }, 'Import a storage file'),
    h('p.muted', null, 'The file is checked first and nothing changes until you press Apply. Applying is one step, with a backup you can undo.',
      limit),
    h('div.form-row', null,
      h('label', null, 'File ', fileInput), h('label', null, 'Into ', domainSelect),
      h('label', null, 'When an item already exists ', policySelect),
      h('label', { title: 'Tokens the apps that read this storage will refuse (another device ID, an MVPD the Programmer does not integrate, expired, another storage version) are left out unless this is ticked.' },
        includeRefused, ' Import refused tokens too'), apply),
    message, preview);
  formParts.push(el.querySelector('.form-row'), message, preview);
  dryRun();

  return {
    el,
    setDomains(domains) {
      const chosen = domainSelect.value;
      fill(domainSelect, domains.map((d) => h('option', { value: d.id }, `${d.label} (${d.id})`)));
      if (domains.some((d) => d.id === chosen)) domainSelect.value = chosen;
    },
  };
}

// Tokens: what the device's token storage holds right now, per storage domain, as Programmer × MVPD grids with
// live TTL countdowns and the server's verdicts; safe clears with Undo; export and import.
import { h, fill, emptyState, code, refresher } from '../../lib/dom.js';
import { get } from '../../lib/api.js';
import { setServerNow } from '../../lib/format.js';
import { showError } from '../../lib/ui.js';
import * as live from '../../lib/live.js';
import { domainSection } from './storage-grid.js';
import { clearFlow, exportDomain, targetOf } from './clear-flow.js';
import { importPanel } from './import-panel.js';

const FOCUS_KEYS = ['action', 'clearDomain', 'clearRequestor', 'clearMvpd', 'clearResource', 'exportDomain'];

/** The key of a domain for "did it change?" (remainingSeconds moves every fetch; the countdowns tick anyway). */
const domainKey = (domain) => JSON.stringify(domain, (k, v) => (k === 'remainingSeconds' ? undefined : v));

export function mount(root) {
  const sections = new Map();
  const keys = new Map();
  const grid = h('div', { id: 'storage-grid' });
  const folder = h('span.muted.small');
  const importer = importPanel(() => load());
  fill(root,
    h('div.view-head', null, h('h2', null, 'Tokens'),
      h('p.lede', null, 'What the device’s token storage holds now. Each table is one storage file: Programmers in rows, TV providers (MVPDs) in columns.'),
      h('p.note', null, h('span', { 'aria-hidden': 'true' }, 'ℹ '),
        'Media tokens are never cached: the SDK uses each one once for playback, so they appear only as ', code('setToken'),
        ' callbacks on the ', h('a', { href: '#/events?q=setToken' }, 'Events page'), '.'),
      h('p.legend.small', null, 'Countdowns: ✓ time left · ⚠ under 5 minutes (or 10 % of its lifetime) · ✗ expired. Each token lists the checks the SDK makes before using it.'),
      h('div.toolbar', null, folder, h('span.spacer'),
        h('button', { type: 'button', 'data-action': 'goto-import', onclick: () => { importer.el.scrollIntoView({ block: 'start' }); importer.el.querySelector('#import-file').focus(); } }, '⤒ Import a storage file…'))),
    grid, importer.el);

  const load = refresher(async () => {
    let data;
    try {
      data = await get('/api/storage', undefined, { quiet: true });
    } catch (error) {
      if (!sections.size) fill(grid, emptyState('Could not read the token storage.', error.message, error.detail ? ` ${error.detail}` : ''));
      else showError(error, 'Could not refresh the token storage');
      return;
    }
    setServerNow(data.now);
    folder.textContent = `Device folder: ${data.deviceFolder}`;
    render(data.domains ?? []);
    importer.setDomains(data.domains ?? []);
  });

  function render(domains) {
    if (!domains.length) {
      sections.clear();
      keys.clear();
      fill(grid, emptyState('No token storage on this device yet.',
        'Storage files appear once an app calls setRequestor. Start an app on the ', h('a', { href: '#/flows' }, 'Flows page'), '.'));
      return;
    }
    const focused = document.activeElement instanceof HTMLElement && grid.contains(document.activeElement)
      ? Object.fromEntries(FOCUS_KEYS.map((k) => [k, document.activeElement.dataset[k]])) : null;
    const seen = new Set();
    grid.querySelector(':scope > .empty')?.remove();
    domains.forEach((domain, index) => {
      seen.add(domain.id);
      const key = domainKey(domain);
      let el = sections.get(domain.id);
      if (!el || keys.get(domain.id) !== key) {
        const next = domainSection(domain);
        if (el) el.replaceWith(next);
        el = next;
        sections.set(domain.id, el);
        keys.set(domain.id, key);
      }
      if (grid.children[index] !== el) grid.insertBefore(el, grid.children[index] ?? null);
    });
    for (const [id, el] of sections) {
      if (!seen.has(id)) {
        el.remove();
        sections.delete(id);
        keys.delete(id);
      }
    }
    if (focused && !grid.contains(document.activeElement)) {
      const match = [...grid.querySelectorAll('button[data-action]')].find((b) => FOCUS_KEYS.every((k) => b.dataset[k] === focused[k]));
      match?.focus();
    }
  }

  grid.addEventListener('click', async (event) => {
    const button = event.target.closest('button[data-action]');
    if (!button) return;
    const action = button.dataset.action;
    try {
      if (action.startsWith('clear-')) await clearFlow(targetOf(button), () => load());
      else if (action === 'export-storage') await exportDomain(button.dataset.exportDomain, false);
      else if (action === 'export-storage-reveal') await exportDomain(button.dataset.exportDomain, true);
    } catch {
      // the API layer already showed the error
    }
  });

  const offChange = live.onChange(() => load(), 250);
  load();
  return { unmount() { offChange(); } };
}

// Tokens: what the device's token storage holds right now, per storage domain, as Programmer × MVPD grids with
// live TTL countdowns and the server's verdicts; safe clears with Undo; export and import. A look-ahead shows the
// verdicts as they will be later (`#/tokens?ahead=3600`), to see what expires mid-session without waiting for it.
import { h, fill, emptyState, code, refresher } from '../../lib/dom.js';
import { get, withQuery } from '../../lib/api.js';
import { setServerNow, setLookAhead, dateTime, span, exactTime } from '../../lib/format.js';
import { showError } from '../../lib/ui.js';
import * as live from '../../lib/live.js';
import { domainSection } from './storage-grid.js';
import { clearFlow, exportDomain, targetOf } from './clear-flow.js';
import { importPanel } from './import-panel.js';
import { needs } from '../../lib/permissions.js';

const FOCUS_KEYS = ['action', 'clearDomain', 'clearRequestor', 'clearMvpd', 'clearResource', 'exportDomain'];

/** The key of a domain for "did it change?" (remainingSeconds moves every fetch; the countdowns tick anyway). */
const domainKey = (domain) => JSON.stringify(domain, (k, v) => (k === 'remainingSeconds' ? undefined : v));

/** The look-ahead choices, in seconds (`next` is worked out from the tokens shown). */
const AHEAD = [['0', 'Now'], ['3600', 'In 1 hour'], ['21600', 'In 6 hours'], ['86400', 'In 1 day'], ['604800', 'In 7 days'],
  ['2592000', 'In 30 days'], ['next', 'Just after the next token expires']];

const aheadOf = (params) => {
  const seconds = Number.parseInt(params?.ahead ?? '0', 10);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
};

/** The server's present, in ms: the time the tokens were judged at, less the look-ahead. */
const presentOf = (data) => Date.parse(data.now) - (data.lookAheadSeconds ?? 0) * 1000;

/** Seconds from the server's present to one second after the soonest expiry still to come, or null. */
function nextExpiry(data) {
  const present = presentOf(data);
  const ends = (data.domains ?? []).flatMap((d) => d.programmers ?? []).flatMap((p) => p.mvpds ?? [])
    .flatMap((c) => [c.authn, ...(c.authz ?? [])]).filter(Boolean)
    .map((t) => Date.parse(t.expires)).filter((t) => !Number.isNaN(t) && t > present);
  return ends.length ? Math.ceil((Math.min(...ends) - present) / 1000) + 1 : null;
}

export function mount(root, current, ctx) {
  const sections = new Map();
  const keys = new Map();
  let ahead = aheadOf(current?.params);
  let latest = null;
  // A fetch may answer after the page is left: it must not set the shared clock (the look-ahead) for other pages.
  let mounted = true;
  const grid = h('div', { id: 'storage-grid' });
  const folder = h('span.muted.small');
  const aheadSelect = h('select', { id: 'look-ahead', 'aria-describedby': 'look-ahead-help', onchange: () => chooseAhead(aheadSelect.value) });
  const aheadLabel = h('label', { for: 'look-ahead' }, 'Judge the tokens as of ');
  const aheadNote = h('p.lookahead', { id: 'look-ahead-note', role: 'status', hidden: true });
  const importer = importPanel(() => load());
  fill(root,
    h('div.view-head', null, h('h1', null, 'Tokens'),
      h('p.lede', null, 'What the device’s token storage holds now. Each table is one storage file: Programmers in rows, TV providers (MVPDs) in columns.'),
      h('p.note', null, h('span', { 'aria-hidden': 'true' }, 'ℹ '),
        'Media tokens are never cached: the SDK uses each one once for playback, so they appear only as ', code('setToken'),
        ' callbacks on the ', h('a', { href: '#/events?q=setToken' }, 'Events page'), '.'),
      h('p.legend.small', null, 'Countdowns: ✓ time left · ⚠ under 5 minutes (or 10 % of its lifetime) · ✗ expired. Each token lists the checks the SDK makes before using it.'),
      h('div.toolbar', null, folder, h('span.spacer'),
        aheadLabel, aheadSelect,
        h('span.sr-only', { id: 'look-ahead-help' }, 'Shows the verdicts as they will be at a later time. Storage is not changed.'),
        h('button', { type: 'button', 'data-action': 'goto-import', ...needs('import'), onclick: () => { importer.el.scrollIntoView({ block: 'start' }); importer.el.querySelector('#import-file').focus(); } }, '⤒ Import a storage file…'))),
    aheadNote, grid, importer.el);

  function paintAhead() {
    // A support bundle answers with the storage as exported, judged when it was made: nothing to look ahead from.
    const canLookAhead = !latest || latest.lookAheadSeconds !== undefined;
    aheadLabel.hidden = !canLookAhead;
    aheadSelect.hidden = !canLookAhead;
    if (!canLookAhead) {
      aheadNote.hidden = true;
      return;
    }
    const known = AHEAD.some(([value]) => value === String(ahead));
    fill(aheadSelect, AHEAD.map(([value, label]) => h('option', { value }, label)),
      known ? null : h('option', { value: String(ahead) }, `In ${span(ahead * 1000)}`));
    aheadSelect.value = String(ahead);
    aheadNote.hidden = ahead === 0;
    if (!ahead || !latest) return;
    fill(aheadNote, h('span', { 'aria-hidden': 'true' }, '» '),
      h('strong', null, 'Looking ahead: '), 'the verdicts and countdowns below are as they will be at ',
      h('time', { datetime: latest.now, title: exactTime(latest.now) }, dateTime(latest.now)), ` (in ${span(ahead * 1000)}). `,
      'Nothing is changed: the apps keep using the real clock. ',
      h('button.small', { type: 'button', 'data-action': 'look-ahead-now', onclick: () => chooseAhead('0') }, 'Back to now'));
  }

  function chooseAhead(value) {
    const seconds = value === 'next' ? (latest && nextExpiry(latest)) : Number.parseInt(value, 10) || 0;
    if (value === 'next' && !seconds) {
      paintAhead();
      fill(aheadNote, 'No token expires later than the time shown: nothing to look ahead to.');
      aheadNote.hidden = false;
      return;
    }
    ctx?.navigate('tokens', [], seconds ? { ahead: seconds } : {}, { replace: true });
  }

  const load = refresher(async () => {
    let data;
    try {
      data = await get(withQuery('/api/storage', { ahead: ahead || null }), undefined, { quiet: true });
      if (!mounted) return;
    } catch (error) {
      if (!sections.size) fill(grid, emptyState('Could not read the token storage.', error.message, error.detail ? ` ${error.detail}` : ''));
      else showError(error, 'Could not refresh the token storage');
      return;
    }
    // The server judged the tokens at its clock plus the look-ahead: countdowns tick from the same moment.
    setServerNow(new Date(presentOf(data)).toISOString());
    setLookAhead((data.lookAheadSeconds ?? 0) * 1000);
    latest = data;
    paintAhead();
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
  paintAhead();
  load();
  return {
    // A new address for this page (another look-ahead, or the same page opened again): read storage again.
    update(next) {
      ahead = aheadOf(next.params);
      paintAhead();
      load();
    },
    unmount() {
      mounted = false;
      offChange();
      setLookAhead(0);
    },
  };
}

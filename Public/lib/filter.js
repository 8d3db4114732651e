// The one filter box. The server parses the grammar; here we only split it into terms, add/remove terms (clicking
// a Programmer adds `programmer:X`), show them as chips, flag a key the server does not know (with the nearest one,
// as the server's 400 names it), and always say when a filter hides something. Keys and values are
// case-insensitive on the server (`mvpd:dish`); `status:` takes classes (4xx), codes (403) and ranges (400-499).
import { h, fill, debounce } from './dom.js';
import { kindLabel } from './format.js';

export const KEYS = {
  programmer: 'Programmer', mvpd: 'MVPD', app: 'App', session: 'Session', device: 'Device',
  event: 'Kind', status: 'HTTP status', since: 'Since', until: 'Until',
};
// Synonyms the server also takes; shown with the same words.
const ALIASES = { requestor: 'programmer', kind: 'event' };

/** Terms of a filter, honouring "double quoted values". */
export function terms(query) {
  return (query ?? '').match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
}

/**
 * `{raw, negated, key, value}`; `key` is null for free text. A term that looks like `key:value` with a key the
 * server does not know has `unknown` (the key as written) and `suggestion` (the nearest known key, or null), as the
 * server's FilterQuery decides: letters only before the colon, not quoted, not a URL.
 */
export function parseTerm(raw) {
  const match = /^(-?)([a-z]+):(.*)$/i.exec(raw);
  const key = match ? ALIASES[match[2].toLowerCase()] ?? match[2].toLowerCase() : null;
  if (key && KEYS[key] !== undefined) {
    return { raw, negated: match[1] === '-', key, value: match[3].replace(/^"|"$/g, '') };
  }
  if (match && !match[3].startsWith('//')) {
    const written = match[2].toLowerCase();
    return { raw, negated: false, key: null, value: raw, unknown: written, suggestion: suggestKey(written) };
  }
  return { raw, negated: false, key: null, value: raw.replace(/^"|"$/g, '') };
}

function editDistance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** The known key nearest to `key` (starting with it, or within two edits), as the server suggests it; or null. */
export function suggestKey(key) {
  const names = [...Object.keys(KEYS), ...Object.keys(ALIASES).sort()];
  const canonical = (name) => ALIASES[name] ?? name;
  const start = names.find((name) => key.length >= 2 && name.startsWith(key));
  if (start) return canonical(start);
  let best = null;
  for (const name of names) {
    const d = editDistance(key, name);
    if (d <= 2 && d < key.length && (!best || d < best.d)) best = { name, d };
  }
  return best ? canonical(best.name) : null;
}

/** The filter without any (non-negated) `key:` term. */
export function withoutKey(query, key) {
  return terms(query).filter((raw) => {
    const term = parseTerm(raw);
    return term.key !== key || term.negated;
  }).join(' ');
}

const quote = (value) => (/\s/.test(value) ? `"${value}"` : value);

/** The filter with `key:value` set (replacing the same key with the same sign), or negated with `negate`. */
export function addTerm(query, key, value, { negate = false } = {}) {
  const kept = terms(query).filter((raw) => {
    const term = parseTerm(raw);
    if (term.key !== key) return true;
    return negate ? !(term.negated && term.value === value) : term.negated;
  });
  return [...kept, `${negate ? '-' : ''}${key}:${quote(value)}`].join(' ');
}

/** The filter without one term. */
export function removeTerm(query, raw) {
  return terms(query).filter((term) => term !== raw).join(' ');
}

/** Whether the filter has `key:value` (not negated). */
export function hasTerm(query, key, value) {
  return terms(query).some((raw) => {
    const term = parseTerm(raw);
    return term.key === key && !term.negated && term.value === value;
  });
}

/** A chip's words: "Programmer: REF30", "Not MVPD: Dish", "Text: foo". */
export function describe(term) {
  if (!term.key) return `Text: ${term.value}`;
  const value = term.key === 'event' ? kindLabel(term.value) : term.value;
  return `${term.negated ? 'Not ' : ''}${KEYS[term.key]}: ${value}`;
}

/**
 * The filter bar: `input#filter-input`, chips, quick toggles and the cue `#filter-cue` ("Filter on: 124 hidden ·
 * Clear"). `onChange(query)` after typing pauses or on Enter. Returns `{el, setValue, setCounts}`.
 */
export function filterBar({ value = '', onChange, placeholder, presets = [] }) {
  let current = value;
  let counts = null;
  const input = h('input', {
    id: 'filter-input', type: 'search', value, placeholder, autocomplete: 'off', spellcheck: 'false',
    'aria-label': 'Filter', 'aria-describedby': 'filter-help',
  });
  const chips = h('div.chips', { role: 'group', 'aria-label': 'Filter terms' });
  const hint = h('div.filter-hint', { id: 'filter-hint', role: 'alert', hidden: true });
  const cue = h('div.filter-cue', { id: 'filter-cue', role: 'status', hidden: true });
  const commit = (next) => {
    next = next.trim();
    if (next === current) return;
    current = next;
    if (input.value.trim() !== next) input.value = next;
    render();
    onChange(next);
  };
  const typed = debounce(() => commit(input.value), 400);
  input.addEventListener('input', typed);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      typed.cancel();
      commit(input.value);
    }
  });
  const presetButtons = presets.map(([label, key, val]) => {
    const button = h('button.chip-toggle', { type: 'button', 'aria-pressed': 'false' }, label);
    button.addEventListener('click', () => {
      commit(hasTerm(current, key, val) ? removeTerm(current, `${key}:${val}`) : addTerm(current, key, val));
    });
    return { button, key, val };
  });

  function render() {
    const parsed = terms(current).map(parseTerm);
    fill(chips, parsed.map((term) =>
      h('button.chip', {
        type: 'button', title: `Remove “${term.raw}” from the filter`, onclick: () => commit(removeTerm(current, term.raw)),
        class: term.unknown ? 'chip-unknown' : null, 'data-unknown': term.unknown ?? null,
      }, term.unknown ? `⚠ Unknown key: ${term.unknown}:` : describe(term), h('span', { 'aria-hidden': 'true' }, ' ×'))));
    const unknown = parsed.find((term) => term.unknown);
    input.setAttribute('aria-invalid', String(Boolean(unknown)));
    hint.hidden = !unknown;
    if (unknown) {
      const fixed = unknown.suggestion ? unknown.raw.replace(/^([a-z]+):/i, `${unknown.suggestion}:`) : null;
      fill(hint, h('span.icon', { 'aria-hidden': 'true' }, '⚠'), ' ', h('code', null, `${unknown.unknown}:`), ' is not a filter key. ',
        fixed ? ['Did you mean ', h('button.linkish', { type: 'button', 'data-action': 'apply-suggestion', onclick: () => commit(current.replace(unknown.raw, fixed)) }, h('code', null, fixed)), '? '] : null,
        h('button.linkish', { type: 'button', 'data-action': 'as-text', onclick: () => commit(current.replace(unknown.raw, `"${unknown.raw}"`)) }, 'Search it as text'),
        '. Keys: ', Object.keys(KEYS).map((key, i) => [i ? ', ' : '', h('code', null, `${key}:`)]), '.');
    }
    for (const { button, key, val } of presetButtons) button.setAttribute('aria-pressed', String(hasTerm(current, key, val)));
    cue.hidden = !current;
    if (!current) return cue.replaceChildren();
    const hidden = counts ? Math.max(0, counts.total - counts.matching) : null;
    fill(cue, h('span.icon', { 'aria-hidden': 'true' }, '⚲'), ' ',
      hidden === null ? 'Filter on' : counts.capped ? `Filter on: at most ${hidden.toLocaleString()} hidden` : `Filter on: ${hidden.toLocaleString()} hidden`, ' · ',
      h('button.linkish', { type: 'button', 'data-action': 'clear-filter', onclick: () => commit('') }, 'Clear'));
  }

  const help = h('details.filter-help', { id: 'filter-help' }, h('summary', null, 'How to filter'),
    h('p', null, 'Separate terms with spaces; all must match. Keys: ',
      Object.keys(KEYS).map((key, i) => [i ? ', ' : '', h('code', null, `${key}:`)]),
      '. Examples: ', h('code', null, 'programmer:REF30'), ', ', h('code', null, '-mvpd:Dish'), ' (not Dish), ',
      h('code', null, 'status:4xx'), ', ', h('code', null, 'status:403'), ', ', h('code', null, 'status:400-499'), ', ',
      h('code', null, 'since:-15m'), ', ', h('code', null, 'app:"News (iPhone)"'), ' or ', h('code', null, 'app:news.ios'),
      ' (an app by its name or the end of its bundle ID). Keys and values ignore case (', h('code', null, 'mvpd:dish'), '). Other words search the summary; quote a word with a colon to search it as text.'));
  const el = h('div.filter-bar', null,
    h('div.filter-row', null, h('label.filter-label', { for: 'filter-input' }, 'Filter'), input,
      presetButtons.map((p) => p.button)),
    h('div.filter-row', null, chips, cue), hint, help);
  render();
  return {
    el,
    get value() { return current; },
    setValue(next) {
      if ((next ?? '') === current) return;
      current = next ?? '';
      input.value = current;
      render();
    },
    setCounts(next) {
      counts = next;
      render();
    },
  };
}

// The one filter box. The server parses the grammar; here we only split it into terms, add/remove terms (clicking
// a Programmer adds `programmer:X`), show them as chips, and always say when a filter hides something.
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

/** `{raw, negated, key, value}`; `key` is null for free text. */
export function parseTerm(raw) {
  const match = /^(-?)([a-z]+):(.*)$/i.exec(raw);
  const key = match ? ALIASES[match[2].toLowerCase()] ?? match[2].toLowerCase() : null;
  if (key && KEYS[key] !== undefined) {
    return { raw, negated: match[1] === '-', key, value: match[3].replace(/^"|"$/g, '') };
  }
  return { raw, negated: false, key: null, value: raw.replace(/^"|"$/g, '') };
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
  const chips = h('div.chips', { 'aria-label': 'Filter terms' });
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
    fill(chips, terms(current).map(parseTerm).map((term) =>
      h('button.chip', { type: 'button', title: `Remove “${term.raw}” from the filter`, onclick: () => commit(removeTerm(current, term.raw)) },
        describe(term), h('span', { 'aria-hidden': 'true' }, ' ×'))));
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
      h('code', null, 'status:4xx'), ', ', h('code', null, 'since:-15m'), '. Other words search the summary.'));
  const el = h('div.filter-bar', null,
    h('div.filter-row', null, h('label.filter-label', { for: 'filter-input' }, 'Filter'), input,
      presetButtons.map((p) => p.button)),
    h('div.filter-row', null, chips, cue), help);
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

// Small DOM helpers: an element builder, live-ticking times and countdowns, keyboard list navigation.
import { clockTime, dateTime, exactTime, relative, since, ttl } from './format.js';

/**
 * `h('button.primary', {'data-action': 'start', onclick}, 'Start')`. Attributes that are null/false are left out,
 * `true` sets an empty attribute, `on…` functions become listeners, children may be nested arrays or strings.
 */
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElement(name || 'div');
  if (classes.length) el.classList.add(...classes);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.classList.add(...String(value).split(/\s+/).filter(Boolean));
    else if (key === 'value' && 'value' in el) el.value = value;
    else if (key === 'style') el.style.cssText = String(value); // a style attribute would break the page's CSP
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  appendAll(el, children);
  return el;
}

export function appendAll(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replace an element's children. */
export const fill = (el, ...children) => {
  el.replaceChildren();
  return appendAll(el, children);
};

/** A `<time>` showing `HH:mm:ss.SSS` and, when `withRelative`, a ticking "5 s ago"; the exact ISO time on hover. */
export function timeEl(iso, withRelative = true) {
  return h('time', { datetime: iso, title: exactTime(iso) }, clockTime(iso),
    withRelative ? [' ', h('span.rel', { 'data-rel': iso }, relative(iso))] : null);
}

/** A ticking TTL countdown ("2 h 3 min left", "expired 5 min ago") with icon and state class. */
export function countdown(expires, issued) {
  const el = h('span.countdown', { 'data-expires': expires, 'data-issued': issued ?? '', title: `Expires ${exactTime(expires)}` });
  paintCountdown(el);
  return el;
}

/** A ticking "for 12 s" since a time. */
export const sinceEl = (iso) => h('span.since', { 'data-since': iso, title: exactTime(iso) }, since(iso));

function paintCountdown(el) {
  const t = ttl(el.dataset.expires, el.dataset.issued);
  const text = `${t.icon} ${t.text}`;
  if (el.textContent !== text) el.textContent = text;
  el.dataset.state = t.state;
}

let ticker = null;
/** Update every visible countdown, relative time and "since" once a second. */
export function startTicker() {
  if (ticker) return;
  ticker = setInterval(() => {
    const main = document.getElementById('main');
    for (const el of main.querySelectorAll('[data-expires]')) paintCountdown(el);
    for (const el of main.querySelectorAll('[data-rel]')) {
      const text = relative(el.dataset.rel);
      if (el.textContent !== text) el.textContent = text;
    }
    for (const el of main.querySelectorAll('[data-since]')) {
      const text = since(el.dataset.since);
      if (el.textContent !== text) el.textContent = text;
    }
  }, 1000);
}

/** Trailing debounce. */
export function debounce(fn, ms) {
  let timer = null;
  const wrapped = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  wrapped.cancel = () => clearTimeout(timer);
  return wrapped;
}

/** A status badge: icon and words, never colour alone. */
export const badge = (icon, text, cls = '', title) =>
  h('span.badge', { class: cls, title }, h('span.icon', { 'aria-hidden': 'true' }, icon), ' ', text);

/** An empty state that says why it is empty and what to do. */
export const emptyState = (title, ...why) => h('div.empty', { role: 'status' }, h('strong', null, title), why.length ? h('p', null, ...why) : null);

/** Inline code. */
export const code = (text) => h('code', null, text);

/**
 * Keyboard selection over rows: `move(+1|-1)` for j/k, `current()`, `select(row)`. `rows()` returns the rows in
 * display order; the selected row gets `.selected` and `aria-selected="true"` and is scrolled into view.
 */
export function listNav(rows, onSelect) {
  let selected = null;
  const api = {
    current: () => (selected && selected.isConnected ? selected : null),
    select(row, { silent = false } = {}) {
      if (selected && selected !== row) {
        selected.classList.remove('selected');
        selected.removeAttribute('aria-selected');
      }
      selected = row;
      if (!row) return;
      row.classList.add('selected');
      row.setAttribute('aria-selected', 'true');
      row.scrollIntoView({ block: 'nearest' });
      if (!silent) onSelect?.(row);
    },
    move(step) {
      const list = [...rows()];
      if (!list.length) return;
      const at = list.indexOf(api.current());
      const next = at < 0 ? (step > 0 ? 0 : list.length - 1) : Math.min(list.length - 1, Math.max(0, at + step));
      api.select(list[next]);
    },
  };
  return api;
}

/** Copy text to the clipboard, with a fallback for pages served over plain HTTP beyond loopback. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h('textarea', { style: 'position:fixed;opacity:0' });
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** Tabs (`role="tablist"`): `[{id, label, render() → node}]`; remembers the last tab chosen per `key`. */
const lastTab = new Map();
export function tabs(key, list) {
  const wanted = lastTab.get(key);
  let currentId = list.some((t) => t.id === wanted) ? wanted : list[0].id;
  const panel = h('div.tab-panel', { role: 'tabpanel' });
  const buttons = list.map((t) => h('button.tab', {
    type: 'button', role: 'tab', 'data-tab-id': t.id,
    onclick: () => show(t.id),
  }, t.label));
  function show(id) {
    currentId = id;
    lastTab.set(key, id);
    for (const b of buttons) b.setAttribute('aria-selected', String(b.dataset.tabId === id));
    fill(panel, list.find((t) => t.id === id).render());
  }
  show(currentId);
  return h('div.tabs-box', null, h('div.tablist', { role: 'tablist' }, buttons), panel);
}

/** A two-column table of an object's entries (nested values as JSON), or a line saying it is empty. */
export function keyValues(object, emptyText = 'None.') {
  const entries = Object.entries(object ?? {});
  if (!entries.length) return h('p.muted', null, emptyText);
  return h('table.kv', null, h('tbody', null, entries.sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) =>
    h('tr', null, h('th', { scope: 'row' }, k),
      h('td', null, typeof v === 'object' && v !== null ? h('pre', null, JSON.stringify(v, null, 2)) : String(v ?? '—'))))));
}

/**
 * Serialise and coalesce reloads: calling while one runs schedules exactly one more afterwards, so a change that
 * lands mid-fetch is never lost and fetches never pile up.
 */
export function refresher(load) {
  let running = false;
  let again = false;
  return async function run() {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await load();
      } while (again);
    } finally {
      running = false;
    }
  };
}

const UTC_TIME = /(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}) UTC|(\d{2}):(\d{2}):(\d{2}) UTC/g;

/**
 * `text` from the server with its UTC times (`2026-11-24 14:32 UTC`, `14:32:05 UTC`: the words support staff paste
 * into tickets) shown in the browser's time zone like every other time on the page, the UTC reading on hover.
 * A time of day alone is read on the UTC date of `referenceISO` (the session's).
 */
export function withLocalTimes(text, referenceISO) {
  const parts = [];
  let last = 0;
  const reference = new Date(referenceISO ?? Date.now());
  for (const match of String(text ?? '').matchAll(UTC_TIME)) {
    const [whole, year, month, day, hour, minute, hh, mm, ss] = match;
    const at = year
      ? new Date(Date.UTC(+year, +month - 1, +day, +hour, +minute))
      : new Date(Date.UTC(reference.getUTCFullYear(), reference.getUTCMonth(), reference.getUTCDate(), +hh, +mm, +ss));
    if (Number.isNaN(at.getTime())) continue;
    parts.push(text.slice(last, match.index));
    const shown = year ? dateTime(at.toISOString()).slice(0, 16) : clockTime(at.toISOString()).slice(0, 8);
    parts.push(h('time', { datetime: at.toISOString(), title: `${whole} · ${exactTime(at.toISOString())}` }, shown));
    last = match.index + whole.length;
  }
  parts.push(String(text ?? '').slice(last));
  return parts;
}

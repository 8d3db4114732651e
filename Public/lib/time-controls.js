// Time on the Events page: a range picker that writes `since:`/`until:` into the filter (last 15 min, hour, day, or
// a custom range), jump-to-time (the list shows the events before a moment, kept in the URL as `at=`), the size of
// the window "Load older" reads, and the device cell the event tables share.
import { h, fill } from './dom.js';
import { terms, parseTerm, withoutKey } from './filter.js';
import { shortID, dateTime } from './format.js';

const RANGES = [['', 'Any time'], ['-15m', 'Last 15 min'], ['-1h', 'Last hour'], ['-1d', 'Last day'], ['custom', 'Custom range…']];
export const WINDOWS = [[900, '15 minutes'], [3600, 'hour'], [86400, 'day']];

/** A device ID, short, with the whole ID on hover; a click filters on it. */
export function deviceCell(deviceID, narrow) {
  if (!deviceID) return h('span.muted', null, '—');
  return h('button.term', { type: 'button', title: `Device ${deviceID} — show only its events`, 'data-device': deviceID,
    onclick: () => narrow('device', deviceID) }, shortID(deviceID));
}

/** `datetime-local` value (local time, minutes) for an ISO time, and back. */
const localValue = (iso) => {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};
const isoOf = (local) => (local ? new Date(local).toISOString().replace(/\.\d{3}Z$/, 'Z') : null);

/** The range a filter's `since:`/`until:` terms describe: a preset's value, `custom`, or '' (any time). */
export function rangeOf(query) {
  const keyed = terms(query).map(parseTerm).filter((t) => !t.negated && (t.key === 'since' || t.key === 'until'));
  if (!keyed.length) return { kind: '' };
  const since = keyed.find((t) => t.key === 'since')?.value ?? null;
  const until = keyed.find((t) => t.key === 'until')?.value ?? null;
  if (!until && RANGES.some(([value]) => value === since)) return { kind: since };
  return { kind: 'custom', since, until };
}

/** The filter with its time terms replaced by `since`/`until` (either may be null). */
export function withRange(query, since, until) {
  let next = withoutKey(withoutKey(query, 'since'), 'until');
  if (since) next = `${next} since:${since}`;
  if (until) next = `${next} until:${until}`;
  return next.trim();
}

/**
 * The time bar: `onQuery(nextQuery)` when the range changes, `onJump(iso|null)` for jump-to-time. Returns
 * `{el, sync(query, at), windowSeconds()}`. Without `onJump` (a page that pages by a fixed window, as Network) the
 * bar holds only the range.
 */
export function timeControls({ onQuery, onJump }) {
  let query = '';
  const range = h('select', { id: 'time-range', 'aria-label': 'Time range' }, RANGES.map(([value, label]) => h('option', { value }, label)));
  const from = h('input', { id: 'time-from', type: 'datetime-local', 'aria-label': 'From' });
  const to = h('input', { id: 'time-to', type: 'datetime-local', 'aria-label': 'Until' });
  const apply = h('button.small', { type: 'button', 'data-action': 'apply-range' }, 'Apply');
  const custom = h('span.custom-range', { hidden: true }, ' from ', from, ' until ', to, ' ', apply);
  const jump = h('input', { id: 'jump-to', type: 'datetime-local', 'aria-label': 'Jump to time' });
  const jumpButton = h('button.small', { type: 'button', 'data-action': 'jump' }, 'Go');
  const jumped = h('span.jumped', { id: 'jumped', role: 'status', hidden: true });
  const olderWindow = h('select', { id: 'older-window', 'aria-label': '“Load older” reads' },
    WINDOWS.map(([seconds, label]) => h('option', { value: String(seconds), selected: seconds === 3600 ? '' : null }, `the previous ${label}`)));

  range.addEventListener('change', () => {
    custom.hidden = range.value !== 'custom';
    if (range.value === 'custom') return from.focus();
    onQuery(withRange(query, range.value || null, null));
  });
  apply.addEventListener('click', () => onQuery(withRange(query, isoOf(from.value), isoOf(to.value))));
  const go = () => { if (jump.value && onJump) onJump(isoOf(jump.value)); };
  jumpButton.addEventListener('click', go);
  jump.addEventListener('keydown', (event) => { if (event.key === 'Enter') go(); });

  const el = h('div.time-bar', null,
    h('label.filter-label', { for: 'time-range' }, 'Time'), range, custom,
    onJump ? [
      h('span.sep', { 'aria-hidden': 'true' }, ' · '), h('label.filter-label', { for: 'jump-to' }, 'Jump to'), jump, jumpButton, jumped,
      h('span.sep', { 'aria-hidden': 'true' }, ' · '), h('label.filter-label', { for: 'older-window' }, 'Load older reads'), olderWindow,
    ] : null);

  return {
    el,
    sync(nextQuery, at) {
      query = nextQuery ?? '';
      const current = rangeOf(query);
      range.value = current.kind;
      custom.hidden = current.kind !== 'custom';
      if (current.kind === 'custom') {
        from.value = current.since && !current.since.startsWith('-') ? localValue(current.since) : '';
        to.value = current.until && !current.until.startsWith('-') ? localValue(current.until) : '';
      }
      jumped.hidden = !at;
      if (at) {
        jump.value = localValue(at);
        fill(jumped, `Showing events before ${dateTime(at)} (live updates off) · `,
          h('button.linkish', { type: 'button', 'data-action': 'back-to-now', onclick: () => onJump(null) }, 'Back to now'));
      }
    },
    windowSeconds: () => Number(olderWindow.value) || 3600,
    windowLabel: () => WINDOWS.find(([s]) => s === (Number(olderWindow.value) || 3600))?.[1] ?? 'hour',
  };
}

// Words and numbers for people: local clock times, relative times, TTL countdowns, HTTP status, event kinds.

let serverOffsetMs = 0;
let lookAheadMs = 0;

/** Remember the server's clock (`now` of /api/storage) so countdowns agree with the server's verdicts. */
export function setServerNow(iso) {
  const server = Date.parse(iso);
  if (!Number.isNaN(server)) serverOffsetMs = server - Date.now();
}

/** Countdowns tick `ms` in the future (the Tokens page's look-ahead); 0 puts them back on the present. */
export function setLookAhead(ms) {
  lookAheadMs = ms;
}

/** Browser clock minus server clock, in ms (positive: the browser is ahead). */
export const clockSkewMs = () => -serverOffsetMs;

/** Now, on the server's clock (plus the Tokens page's look-ahead while one is set). */
export const now = () => Date.now() + serverOffsetMs + lookAheadMs;

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** `HH:mm:ss.SSS` in the browser's time zone. */
export function clockTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Date and time for older items: `2026-11-22 14:32:05`. */
export function dateTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clockTime(iso).slice(0, 8)}`;
}

/** The tooltip of any shown time: exact ISO in UTC, epoch seconds and the local reading. */
export function exactTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso ?? '');
  return `${d.toISOString()} (UTC) · epoch ${d.getTime() / 1000} · local ${d.toLocaleString()}`;
}

/** A span in human units: `2 d 3 h`, `2 h 3 min`, `3 min 20 s`, `45 s`. */
export function span(ms) {
  let s = Math.max(0, Math.floor(Math.abs(ms) / 1000));
  const d = Math.floor(s / 86400); s -= d * 86400;
  const h = Math.floor(s / 3600); s -= h * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  if (d) return h ? `${d} d ${h} h` : `${d} d`;
  if (h) return m ? `${h} h ${m} min` : `${h} h`;
  if (m) return s ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}

/** The largest unit only, for short labels: `5 s`, `3 min`, `2 h`, `4 d`. */
export function coarse(ms) {
  const s = Math.floor(Math.abs(ms) / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}

/** `5 s ago`, `3 min ago`, `in 2 min`, `just now` (one unit: it sits next to the exact clock time). */
export function relative(iso) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const diff = now() - t;
  if (Math.abs(diff) < 1000) return 'just now';
  return diff > 0 ? `${coarse(diff)} ago` : `in ${coarse(diff)}`;
}

/** How long something has been in a state: `for 12 s`. */
export function since(iso) {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? '' : `for ${span(now() - t)}`;
}

/**
 * A TTL countdown: `{text, state}` with state `ok`, `soon` (under 5 min or under 10 % of the TTL) or `expired`.
 */
export function ttl(expires, issued) {
  const end = Date.parse(expires);
  if (Number.isNaN(end)) return { text: 'no expiry', state: 'ok', icon: '•' };
  const left = end - now();
  if (left <= 0) return { text: `expired ${span(left)} ago`, state: 'expired', icon: '✗' };
  const start = Date.parse(issued);
  const total = Number.isNaN(start) ? null : end - start;
  const soon = left < 5 * 60 * 1000 || (total && left < total * 0.1);
  return { text: `${span(left)} left`, state: soon ? 'soon' : 'ok', icon: soon ? '⚠' : '✓' };
}

/** Milliseconds for HTTP: `12 ms`, `1.25 s`. */
export function duration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(Number(ms))) return '—';
  const n = Number(ms);
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(2)} s`;
}

/** HTTP status as icon + words + a class: 2xx OK, 3xx redirect, 4xx client error, 5xx server error, failed. */
export function httpStatus(status, failure) {
  if (status === null || status === undefined) {
    return { icon: '✗', text: failure ? `Failed: ${failure}` : 'Failed: no answer', cls: 'st-failed' };
  }
  if (status < 300) return { icon: '✓', text: `${status} OK`, cls: 'st-2xx' };
  if (status < 400) return { icon: '↪', text: `${status} Redirect`, cls: 'st-3xx' };
  if (status < 500) return { icon: '⚠', text: `${status} Client error`, cls: 'st-4xx' };
  return { icon: '✗', text: `${status} Server error`, cls: 'st-5xx' };
}

export const KINDS = {
  apiCall: { label: 'API call', icon: '→' },
  stateChanged: { label: 'State change', icon: '◆' },
  httpExchange: { label: 'HTTP', icon: '⇄' },
  storageChanged: { label: 'Storage', icon: '▤' },
  callback: { label: 'Callback', icon: '←' },
  tracking: { label: 'Tracking', icon: '◎' },
  error: { label: 'Error', icon: '✗' },
};

export const kindLabel = (kind) => KINDS[kind]?.label ?? kind;

/** The side a refusal names (health verdicts, Flows cards): who refused, by which kind of rule. */
export const SIDES = { sdkStorage: 'SDK storage rule', backend: 'Backend check', mvpd: 'MVPD decision', network: 'Network', sdk: 'SDK rule', platform: 'Apple TV Provider' };

export const SEVERITY = {
  info: { icon: 'ℹ', label: 'Info' },
  warning: { icon: '⚠', label: 'Warning' },
  error: { icon: '✗', label: 'Problem' },
};

/** `1 event`, `3 events`. */
export function plural(n, one, many = `${one}s`) {
  return `${Number(n).toLocaleString()} ${n === 1 ? one : many}`;
}

/** A short ID for display: the first 8 characters of a UUID. */
export const shortID = (id) => (id && id.length > 12 ? id.slice(0, 8) : id ?? '—');

// Hash routes: `#/events?q=programmer:REF30&sel=42`, `#/sessions/<id>`. Pure parse and build, so every view and
// filter is a URL someone can paste into a ticket.

export const TABS = ['flows', 'tokens', 'devices', 'events', 'network', 'sessions', 'audit'];

/** `{tab, parts, params}` of a hash such as `#/sessions/abc?q=x`. Unknown tabs fall back to flows. */
export function parseHash(hash = location.hash) {
  const text = hash.replace(/^#\/?/, '');
  const queryAt = text.indexOf('?');
  const path = queryAt < 0 ? text : text.slice(0, queryAt);
  const query = queryAt < 0 ? '' : text.slice(queryAt + 1);
  const segments = path.split('/').filter(Boolean).map(safeDecode);
  const tab = TABS.includes(segments[0]) ? segments[0] : 'flows';
  const params = {};
  for (const [key, value] of new URLSearchParams(query)) params[key] = value;
  return { tab, parts: TABS.includes(segments[0]) ? segments.slice(1) : [], params };
}

/** Readable encoding: keeps `:`, `/`, `,` and `@` as they are so `q=programmer:REF30` stays legible. */
export function encodeReadable(value) {
  return encodeURIComponent(value).replace(/%3A/gi, ':').replace(/%2F/gi, '/').replace(/%2C/gi, ',').replace(/%40/g, '@');
}

/** The hash for a tab, extra path parts and query params (empty values are left out). */
export function hashFor(tab, parts = [], params = {}) {
  const path = [tab, ...parts.map(encodeURIComponent)].join('/');
  const query = Object.entries(params)
    .filter(([, value]) => value !== undefined && value !== null && value !== '')
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeReadable(String(value))}`)
    .join('&');
  return `#/${path}${query ? `?${query}` : ''}`;
}

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

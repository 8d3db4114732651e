// Hash routes: `#/events?q=programmer:REF30&sel=42`, `#/sessions/<id>`. Pure parse and build, so every view and
// filter is a URL someone can paste into a ticket.

export const TABS = ['flows', 'tokens', 'devices', 'events', 'network', 'sessions', 'migration', 'audit'];

/** The route of a hash naming no page we have: the "No such page" view, with links to the pages. */
export const NOT_FOUND = 'not-found';

/**
 * `{tab, parts, params}` of a hash such as `#/sessions/abc?q=x`. An empty hash is Flows; an unknown page is
 * `NOT_FOUND`, with the path it named in `parts`.
 */
export function parseHash(hash = location.hash) {
  const text = hash.replace(/^#\/?/, '');
  const queryAt = text.indexOf('?');
  const path = queryAt < 0 ? text : text.slice(0, queryAt);
  const query = queryAt < 0 ? '' : text.slice(queryAt + 1);
  const segments = path.split('/').filter(Boolean).map(safeDecode);
  const known = TABS.includes(segments[0]);
  const tab = segments.length === 0 ? 'flows' : known ? segments[0] : NOT_FOUND;
  const params = {};
  for (const [key, value] of new URLSearchParams(query)) params[key] = value;
  return { tab, parts: known ? segments.slice(1) : tab === NOT_FOUND ? segments : [], params };
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

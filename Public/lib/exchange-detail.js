// One HTTP exchange, in tabs: Overview / Request (parameters, headers) / Response (body). Values arrive already
// redacted by the SDK; the browser never decodes a token.
import { h, badge, keyValues, tabs } from './dom.js';
import { duration, httpStatus } from './format.js';

/** The exchange of an event, or null when it is not an HTTP exchange. */
export const exchangeOf = (event) => event?.event?.kind?.httpExchange?.exchange ?? null;

/** Status of an event's exchange: from `event.http` (the API's summary) or the exchange itself. */
export function statusOf(event) {
  const http = event.http ?? exchangeOf(event) ?? {};
  return httpStatus(http.status, http.failure);
}

export const statusBadge = (event) => {
  const s = statusOf(event);
  return badge(s.icon, s.text, `status ${s.cls}`);
};

/** A response body, pretty-printed when it is JSON. */
function body(text) {
  if (text === null || text === undefined || text === '') return h('p.muted', null, 'No response body (or the request failed before an answer came).');
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // XML or text: show as it came
  }
  return h('pre.body', null, shown);
}

function queryParameters(url) {
  try {
    return Object.fromEntries(new URL(url).searchParams);
  } catch {
    return {};
  }
}

/**
 * What an error answer says, in its own words: `message — details` of the backend's `<error>` XML or JSON error
 * (for example "User not authorized — 0033: The customer is not authorized…"); null when it says nothing readable.
 */
export function serverReason(text) {
  if (!text) return null;
  const join = (message, details) => [message, details].filter(Boolean).join(' — ') || null;
  try {
    const json = JSON.parse(text);
    return json && typeof json === 'object' ? join(json.message ?? json.error?.message, json.details ?? json.error?.details) : null;
  } catch {
    // not JSON: perhaps XML
  }
  const doc = new DOMParser().parseFromString(text, 'application/xml');
  if (doc.querySelector('parsererror')) return null;
  const read = (tag) => doc.getElementsByTagName(tag)[0]?.textContent?.trim() || null;
  return join(read('message'), read('details'));
}

/** The detail tabs of an exchange. */
export function exchangeDetail(exchange) {
  const status = httpStatus(exchange.status, exchange.failure);
  const query = queryParameters(exchange.url);
  const reason = exchange.status >= 400 ? serverReason(exchange.responseBody) : null;
  return tabs('exchange', [
    {
      id: 'overview', label: 'Overview', render: () => h('dl.facts', null,
        h('dt', null, 'Request'), h('dd', null, h('code', null, `${exchange.method} ${exchange.url}`)),
        h('dt', null, 'Status'), h('dd', null, badge(status.icon, status.text, `status ${status.cls}`)),
        exchange.failure ? [h('dt', null, 'Why it failed'), h('dd', null, exchange.failure)] : null,
        reason ? [h('dt', null, 'What the server said'), h('dd.server-reason', null, reason)] : null,
        exchange.errorCode ? [h('dt', null, 'Backend check'), h('dd', null, h('code', null, exchange.errorCode), h('span.muted', null, ' (Authzf-Error-Code: the rule that refused)'))] : null,
        h('dt', null, 'Duration'), h('dd', null, `${duration(exchange.durationMs)} (request sent to answer received)`)),
    },
    {
      id: 'request', label: 'Request', render: () => [
        h('h3', null, 'Parameters sent'), keyValues(exchange.parameters, 'No form parameters.'),
        Object.keys(query).length ? [h('h3', null, 'Query string'), keyValues(query)] : null,
        h('h3', null, 'Headers the SDK added'), keyValues(exchange.headers, 'No extra headers.'),
      ],
    },
    { id: 'response', label: 'Response', render: () => [h('h3', null, `Body${exchange.status ? ` (${exchange.status})` : ''}`), body(exchange.responseBody)] },
  ]);
}

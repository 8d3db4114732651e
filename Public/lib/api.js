// The console's JSON API: access token (when the console is bound beyond loopback), CSRF header on every POST,
// and errors turned into readable messages.
import { showError, banner, resolveToasts, toast } from './ui.js';
import { TOKEN_KEY, signInForm } from './sign-in.js';

/** Read `?token=` once, keep it for this tab, and take it out of the address bar so shared URLs never carry it. */
function initToken() {
  const url = new URL(location.href);
  const fromURL = url.searchParams.get('token');
  if (fromURL) {
    sessionStorage.setItem(TOKEN_KEY, fromURL);
    url.searchParams.delete('token');
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

const accessToken = initToken();

/** An error from the API, carrying its `{error, message, detail}`. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || `The console answered with status ${status}.`);
    this.status = status;
    this.code = body?.error ?? 'http_error';
    this.detail = body?.detail ?? null;
    /** The whole answer, for errors that carry more (the replay's candidates). */
    this.body = body ?? null;
  }
}

let overviewPromise = null;
let csrfToken = null;

/** `GET /api/overview`, once (pass `fresh` to reload it). Holds the CSRF token POSTs send. */
export function overview(fresh = false) {
  if (!overviewPromise || fresh) {
    overviewPromise = request('GET', '/api/overview', { quiet: true }).then((data) => {
      csrfToken = data.csrfToken;
      return data;
    });
    overviewPromise.catch(() => { overviewPromise = null; });
  }
  return overviewPromise;
}

function headers(extra = {}) {
  const all = { Accept: 'application/json', ...extra };
  if (accessToken) all.Authorization = `Bearer ${accessToken}`;
  return all;
}

/** Path plus query (empty values left out). */
export function withQuery(path, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * One request. `body`: an object (sent as JSON) or a Blob/string (sent raw). `quiet`: do not toast errors.
 * POSTs wait for the CSRF token and retry once with a fresh one if the server refuses it.
 */
export async function request(method, path, { body, query, quiet = false, retried = false } = {}) {
  // What the error toast is about: a later success of the same call takes it away.
  const action = actionOf(method, path, body);
  const extra = {};
  let payload;
  if (body instanceof Blob || typeof body === 'string') {
    payload = body;
    extra['Content-Type'] = 'application/octet-stream';
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    extra['Content-Type'] = 'application/json';
  }
  if (method !== 'GET') {
    if (!csrfToken) await overview();
    extra['X-PassConsole-CSRF'] = csrfToken;
  }
  let response;
  try {
    response = await fetch(withQuery(path, query), { method, headers: headers(extra), body: payload, credentials: 'same-origin' });
  } catch (cause) {
    const error = new ApiError(0, { error: 'unreachable', message: 'Could not reach the console.', detail: 'Is `passconsole serve` still running? The page retries on its own.' });
    if (!quiet) showError(error, undefined, { action });
    throw error;
  }
  if (response.ok) {
    banner(null);
    resolveToasts(action);
    if (response.status === 204) return null;
    const type = response.headers.get('Content-Type') || '';
    return type.includes('json') ? response.json() : response.text();
  }
  const error = new ApiError(response.status, await response.json().catch(() => null));
  if (response.status === 403 && method !== 'GET' && !retried && /csrf/i.test(`${error.code} ${error.message}`)) {
    await overview(true);
    return request(method, path, { body, query, quiet, retried: true });
  }
  if (response.status === 401 && ['sign_in_required', 'token_revoked'].includes(error.code)) {
    signInForm(error.code === 'token_revoked' ? error.message : accessToken ? 'That token is not known to this console.' : 'This console has named operators: paste your personal token.');
  } else if (response.status === 401) {
    banner('This console needs an access token.', 'Open the URL that `passconsole serve` printed (it ends with ?token=…).');
  }
  if (!quiet) showError(error, undefined, { action });
  throw error;
}

/** `POST /api/apps/news-ios/call getAuthorization`: the endpoint, and the SDK method for app calls. */
function actionOf(method, path, body) {
  const name = body && typeof body === 'object' && !(body instanceof Blob) && typeof body.method === 'string' ? ` ${body.method}` : '';
  return `${method} ${path}${name}`;
}

export const get = (path, query, options = {}) => request('GET', path, { ...options, query });
export const post = (path, body, options = {}) => request('POST', path, { ...options, body });

/** The SSE URL, with `access_token` when the console needs one (EventSource cannot send headers). */
export function streamURL(query = {}) {
  return withQuery('/api/events/stream', { ...query, access_token: accessToken });
}

/**
 * Download a file from the API (through fetch, so the access token header goes along), saving it under the
 * name from `Content-Disposition` or `fallbackName`, then confirm it in a toast: the name, how many items, and
 * what personal data was redacted (`X-PassConsole-Export-Count`, `-Unit`, `X-PassConsole-Redacted`).
 * Returns `{name, count, unit, redacted}`, or null when it failed (an error toast said why).
 */
export async function download(path, query, fallbackName) {
  const url = withQuery(path, query);
  const action = `GET ${path}`;
  let response;
  try {
    response = await fetch(url, { headers: headers({ Accept: '*/*' }), credentials: 'same-origin' });
  } catch {
    showError(new ApiError(0, { message: 'Could not reach the console to download the file.' }), undefined, { action });
    return null;
  }
  if (!response.ok) {
    showError(new ApiError(response.status, await response.json().catch(() => null)), 'Download failed', { action });
    return null;
  }
  const disposition = response.headers.get('Content-Disposition') || '';
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  const name = match ? decodeURIComponent(match[1]) : fallbackName;
  const blob = await response.blob();
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60000);
  resolveToasts(action);
  const saved = savedFile(name, response.headers);
  toast(saved.text, { kind: 'success', action, detail: saved.detail });
  return saved;
}

/** `Saved passconsole-events-….ndjson, 1,234 events, redacted: user IDs, ZIP codes` from an export's headers. */
export function savedFile(name, headers) {
  const count = headers.get('X-PassConsole-Export-Count');
  const unit = headers.get('X-PassConsole-Export-Unit') || 'items';
  const redacted = headers.get('X-PassConsole-Redacted');
  const parts = [`Saved ${name}`];
  if (count !== null) parts.push(`${Number(count).toLocaleString('en-US')} ${unit}`);
  const revealed = redacted?.startsWith('nothing: revealed') ?? false;
  if (redacted !== null) parts.push(revealed ? 'personal data kept on purpose (audited)' : `redacted: ${redacted}`);
  const detail = redacted === null ? null : revealed
    ? 'Personal data was kept on purpose; the audit log records this export.'
    : 'Tokens are never exported live unless you choose so; personal data is replaced by stable hashes (ZIP codes removed).';
  return { name, count: count === null ? null : Number(count), unit, redacted, text: parts.join(', '), detail };
}

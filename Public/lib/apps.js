// Apps by the names people know them by: the console's name for its demo apps ("News (iPhone)"), and for any other
// app the end of its bundle ID ("news.sports"), so two apps of one company never read the same ("com.example.ne…").
import { get } from './api.js';

let names = new Map();
let loading = null;

/** Loads the console's app names (once; `fresh` reloads). */
export function loadAppNames(fresh = false) {
  if (!loading || fresh) {
    loading = get('/api/apps', undefined, { quiet: true })
      .then(({ apps }) => { names = new Map((apps ?? []).map((a) => [a.bundleID, a.name])); })
      .catch(() => { loading = null; });
  }
  return loading;
}

/** The last two parts of a bundle ID (`com.example.news.sports` → `news.sports`). */
export const bundleTail = (bundleID) => (bundleID ?? '').split('.').slice(-2).join('.') || bundleID || '—';

/** The name to show for an app: the console's name when it runs it, else the end of its bundle ID. */
export const appLabel = (bundleID, known) => known ?? names.get(bundleID) ?? bundleTail(bundleID);

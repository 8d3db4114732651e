// Saved filters: the filters someone uses again and again, kept in this browser (localStorage), one click to apply.
import { h, fill } from '../../lib/dom.js';

const KEY = 'passconsole.savedFilters';

/** The saved filter texts, oldest first. */
export function savedFilters() {
  try {
    const list = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(list) ? list.filter((q) => typeof q === 'string' && q.trim()) : [];
  } catch {
    return [];
  }
}

function store(list) {
  try { localStorage.setItem(KEY, JSON.stringify(list)); } catch { /* private mode: nothing is kept */ }
}

/**
 * A "Save this filter" button and the saved filters as chips. `current()` is the filter shown now; `apply(q)` shows
 * another. Returns `{el, refresh}`; call `refresh()` when the filter changes.
 */
export function savedFilterBar({ current, apply }) {
  const chips = h('span.saved-chips', { role: 'list', 'aria-label': 'Saved filters' });
  const save = h('button', {
    type: 'button', 'data-action': 'save-filter', title: 'Keep this filter in this browser, to apply it again with one click',
    onclick: () => {
      const q = current().trim();
      if (!q) return;
      store([...savedFilters().filter((s) => s !== q), q]);
      refresh();
    },
  }, '☆ Save filter');
  function refresh() {
    const q = current().trim();
    const list = savedFilters();
    save.disabled = !q || list.includes(q);
    save.title = !q ? 'Type a filter first' : list.includes(q) ? 'This filter is saved' : 'Keep this filter in this browser, to apply it again with one click';
    fill(chips, ...list.map((saved) => h('span.saved-chip', { role: 'listitem', 'data-filter': saved },
      h('button.linkish', { type: 'button', title: `Show ${saved}`, 'aria-pressed': String(saved === q), onclick: () => apply(saved) }, saved),
      h('button.ghost', {
        type: 'button', title: `Forget the saved filter ${saved}`, 'aria-label': `Forget ${saved}`,
        onclick: () => { store(savedFilters().filter((s) => s !== saved)); refresh(); },
      }, '×'))));
  }
  refresh();
  return { el: h('div.saved-filters', null, save, chips), refresh };
}

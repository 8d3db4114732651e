// An address naming no page (`#/sesions`, an old bookmark): say so, suggest the page it was probably meant to be,
// and offer every page, instead of quietly showing another one.
import { h, fill } from '../../lib/dom.js';

/** Edits (insert, delete, change a letter) from `a` to `b`. */
function distance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** The view; `current.parts` is the path the address named. */
export function mount(root, current) {
  const asked = current.parts.join('/');
  // The pages are the navigation's links: one list, so a new page appears here too.
  const links = [...document.querySelectorAll('nav a[data-tab]')];
  const pages = links.map((link) => h('li', null, h('a', { href: link.getAttribute('href'), 'data-page': link.dataset.tab }, link.textContent)));
  const first = (current.parts[0] ?? '').toLowerCase();
  const near = links.map((link) => ({ link, d: distance(first, link.dataset.tab) })).sort((a, b) => a.d - b.d)[0];
  const guess = near && near.d <= 2
    ? h('p', { id: 'not-found-guess' }, 'Did you mean ', h('a', { href: [near.link.getAttribute('href'), ...current.parts.slice(1)].join('/') }, near.link.textContent), '?')
    : null;
  fill(root,
    h('div.empty', { id: 'not-found', role: 'alert' },
      h('h1', null, 'No such page'),
      h('p', null, 'The address ', h('code', null, `#/${asked}`), ' names no page of this console.'),
      guess,
      h('p', null, 'Pick one:'),
      h('ul.page-links', null, pages)));
  return {};
}

// An address naming no page (`#/sesions`, an old bookmark): say so, and offer every page, instead of quietly showing
// another one.
import { h, fill } from '../../lib/dom.js';

/** The view; `current.parts` is the path the address named. */
export function mount(root, current) {
  const asked = current.parts.join('/');
  // The pages are the navigation's links: one list, so a new page appears here too.
  const pages = [...document.querySelectorAll('nav a[data-tab]')].map((link) =>
    h('li', null, h('a', { href: link.getAttribute('href'), 'data-page': link.dataset.tab }, link.textContent)));
  fill(root,
    h('div.empty', { id: 'not-found', role: 'alert' },
      h('h2', null, 'No such page'),
      h('p', null, 'The address ', h('code', null, `#/${asked}`), ' names no page of this console. Pick one:'),
      h('ul.page-links', null, pages)));
  return {};
}

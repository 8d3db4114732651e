// The left pane: apps, Programmers, MVPDs and kinds among the loaded events, with counts. Clicking one narrows the
// filter to it; clicking it again takes it off.
import { h, fill } from '../../lib/dom.js';
import { hasTerm } from '../../lib/filter.js';
import { kindLabel, KINDS } from '../../lib/format.js';
import { appLabel } from '../../lib/apps.js';

const GROUPS = [
  { key: 'app', title: 'Apps', value: (e) => e.event?.app?.bundleID, label: (bundleID) => appLabel(bundleID) },
  { key: 'programmer', title: 'Programmers', value: (e) => e.event?.requestorID },
  { key: 'mvpd', title: 'MVPDs', value: (e) => e.event?.mvpdID },
  { key: 'event', title: 'Kinds', value: (e) => e.kind, label: kindLabel },
];

function counts(events, value) {
  const map = new Map();
  for (const event of events) {
    const v = value(event);
    if (v) map.set(v, (map.get(v) ?? 0) + 1);
  }
  return [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
}

/** Render the facets of `events` into `el`; `onToggle(key, value, on)`. */
export function renderFacets(el, events, query, onToggle) {
  if (!events.length) {
    fill(el, h('h2', null, 'Narrow down'), h('p.muted', null, 'Apps, Programmers and MVPDs appear here once events are listed.'));
    return;
  }
  fill(el, h('h2', null, 'Narrow down'), h('p.muted.small', null, `Counted over the ${events.length.toLocaleString()} listed events.`),
    GROUPS.map((group) => {
      const rows = counts(events, group.value);
      if (!rows.length) return null;
      return h('section.facet', null, h('h3', null, group.title), h('ul', null, rows.map(([value, n]) => {
        const on = hasTerm(query, group.key, value);
        const icon = group.key === 'event' ? `${KINDS[value]?.icon ?? ''} ` : '';
        return h('li', null, h('button.facet-item', {
          type: 'button', 'aria-pressed': String(on), title: on ? `Stop filtering on ${value}` : `Show only ${group.key}:${value}`,
          onclick: () => onToggle(group.key, value, !on),
        }, h('span.facet-name', null, icon, group.label ? group.label(value) : value), h('span.facet-count', null, String(n))));
      })));
    }));
}

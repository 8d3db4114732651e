// Flows: every demo app on this console's device as a live card (state diagram, what it waits for, SDK calls).
import { h, fill, emptyState, code, refresher } from '../../lib/dom.js';
import { get } from '../../lib/api.js';
import * as live from '../../lib/live.js';
import { createAppCard } from './app-card.js';

export function mount(root) {
  const cards = new Map();
  const grid = h('div.card-grid');
  const message = h('div');
  fill(root,
    h('div.view-head', null, h('h1', null, 'Flows'),
      h('p.lede', null, 'Each card is one app on the demo device. Drive it like a viewer would; the diagram shows where its sign-in flow is now, and for how long.')),
    message, grid);

  function onApp(app) {
    cards.get(app.id)?.update(app);
  }

  const load = refresher(async () => {
    try {
      const { apps } = await get('/api/apps', undefined, { quiet: cards.size > 0 });
      render(apps ?? []);
    } catch (error) {
      if (!cards.size) fill(message, emptyState('Could not load the apps.', error.message, error.detail ? ` ${error.detail}` : ''));
    }
  });

  function render(apps) {
    if (!apps.length) {
      grid.replaceChildren();
      cards.clear();
      fill(message, emptyState('No demo apps on this console.',
        'It runs without a demo device. Start it with ', code('make run'), ' to get apps you can drive here, or run ',
        code(`passconsole flow --report-to ${location.origin}`), ' elsewhere: reported flows appear on the ',
        h('a', { href: '#/events' }, 'Events'), ' and ', h('a', { href: '#/sessions' }, 'Sessions'), ' pages.'));
      return;
    }
    message.replaceChildren();
    const seen = new Set();
    for (const app of apps) {
      seen.add(app.id);
      const existing = cards.get(app.id);
      if (existing) existing.update(app);
      else cards.set(app.id, createAppCard(app, onApp));
    }
    for (const [id, card] of cards) {
      if (!seen.has(id)) {
        card.el.remove();
        cards.delete(id);
      }
    }
    // Keep the server's order without moving focused elements needlessly.
    apps.forEach((app, i) => {
      const el = cards.get(app.id).el;
      if (grid.children[i] !== el) grid.insertBefore(el, grid.children[i] ?? null);
    });
  }

  const offChange = live.onChange(() => load(), 250);
  // Time alone can change a card (a flow waiting too long becomes "stuck", a token's TTL runs out), and a storage can
  // change with no event (wiped from outside the SDK): re-check every few seconds, re-reading the apps' storage.
  const clock = setInterval(() => { for (const card of cards.values()) card.refresh(); load(); }, 5000);
  load();
  return {
    unmount() {
      offChange();
      clearInterval(clock);
    },
  };
}

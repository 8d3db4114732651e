// One session: the plain-language health card (with a copy button for tickets), the flow diagram, and the
// timeline of every event with the time since the previous one.
import { h, fill, badge, timeEl, code, copyText, emptyState, withLocalTimes } from '../../lib/dom.js';
import { get, post } from '../../lib/api.js';
import { saveExport, revealToggle } from '../../lib/export.js';
import { KINDS, SEVERITY, SIDES, kindLabel, dateTime, exactTime, span } from '../../lib/format.js';
import { hashFor } from '../../lib/route.js';
import { toast } from '../../lib/ui.js';
import { flowDiagram } from '../../lib/flow-diagram.js';
import { needs } from '../../lib/permissions.js';

const MAX_PAGES = 10;

/** Every event of the session, oldest first. */
async function sessionEvents(id) {
  const events = [];
  let after = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await get('/api/events', { q: `session:${id}`, after, limit: 500 }, { quiet: true });
    events.push(...answer.events);
    if (answer.nextCursor == null || !answer.events.length) break;
    after = answer.nextCursor;
  }
  return events.sort((a, b) => a.id - b.id);
}

function healthText(session, health) {
  return [
    `Session ${session.id} · ${session.bundleID} (${session.platform}) · Programmer ${session.requestorID ?? 'not set'} · device ${session.deviceID}`,
    health.headline, ...(health.lines ?? []),
    ...(health.verdicts ?? []).map((v) => `[${SEVERITY[v.severity]?.label ?? v.severity}] ${v.title}: ${v.text}`),
  ].join('\n');
}

function healthCard(session, health) {
  const copy = h('button', { type: 'button', 'data-action': 'copy-health', title: 'Copy this summary as text, for a support ticket' }, 'Copy for a ticket');
  copy.addEventListener('click', async () => {
    const ok = await copyText(healthText(session, health));
    toast(ok ? 'Copied the health card.' : 'Could not copy: select the text and copy it by hand.', { kind: ok ? 'success' : 'error', timeout: 3000 });
  });
  const verdicts = health.verdicts ?? [];
  return h('section.card.health', { id: 'health-card', 'aria-labelledby': 'health-heading' },
    h('div.card-title', null, h('h2', { id: 'health-heading' }, 'Entitlement health'), h('span.spacer'), copy),
    h('p.headline', null, withLocalTimes(health.headline, session.lastSeen)),
    (health.lines ?? []).map((line) => h('p', null, withLocalTimes(line, session.lastSeen))),
    verdicts.length ? h('ul.health-verdicts', null, verdicts.map((v) => {
      const s = SEVERITY[v.severity] ?? { icon: '•', label: v.severity };
      // A refusal names its side (SDK storage rule, backend check, MVPD decision, network) and its rule.
      const side = v.side ? h('span.verdict-side', { 'data-side': v.side, title: v.rule ? `Rule: ${v.rule}` : undefined }, SIDES[v.side] ?? v.side) : null;
      return h('li', { 'data-verdict': v.id, 'data-severity': v.severity, 'data-side': v.side ?? undefined }, badge(s.icon, s.label, `sev-${v.severity}`), ' ', side, side ? ' ' : null, h('strong', null, v.title), ' — ', withLocalTimes(v.text, session.lastSeen));
    })) : null);
}

/** A gap between two events: `12 ms`, `4.2 s`, `1 min 11 s`. */
const gap = (ms) => (ms < 1000 ? `${Math.round(ms)} ms` : ms < 10000 ? `${(ms / 1000).toFixed(1)} s` : span(ms));

function timeline(session, events) {
  if (!events.length) return h('p.muted', null, 'No events stored for this session.');
  let previous = null;
  return h('ol.timeline', { id: 'timeline' }, events.map((event) => {
    const at = Date.parse(event.event?.timestamp);
    const delta = previous === null ? 0 : Math.max(0, at - previous);
    previous = at;
    const kind = KINDS[event.kind] ?? { icon: '•' };
    return h('li', { 'data-event-id': event.id, class: event.kind === 'error' ? 'row-error' : null },
      h('span.delta', { title: 'Time since the previous event' }, `+${gap(delta)}`),
      timeEl(event.event?.timestamp, false),
      badge(kind.icon, kindLabel(event.kind), `kind kind-${event.kind}`),
      h('a.summary', { href: hashFor('events', [], { q: `session:${session.id}`, sel: event.id }), title: 'Open in the Events page' }, event.summary));
  }));
}

const CONTRACT = {
  kept: { icon: '✓', label: 'Kept' },
  broken: { icon: '✗', label: 'Broken' },
  unexercised: { icon: '–', label: 'Not exercised' },
};

/** The SDK's delegate contract, rule by rule, as this session's callbacks kept or broke it. */
function contractCard(rules) {
  const broken = rules.filter((r) => r.status === 'broken').length;
  return h('section.card.contract', { id: 'contract-card', 'aria-labelledby': 'contract-heading' },
    h('h2', { id: 'contract-heading' }, 'Callback contract ',
      h('span.muted.small', null, broken ? `(${broken} rule${broken === 1 ? '' : 's'} broken)` : '(every rule this session exercised was kept)')),
    h('ul.contract-rules', null, rules.map((r) => {
      const look = CONTRACT[r.status] ?? CONTRACT.unexercised;
      return h(`li.contract-${r.status}`, { 'data-rule': r.id },
        h('span.icon', { 'aria-hidden': 'true' }, look.icon), ' ',
        h('strong', null, `${look.label}: `), r.rule,
        r.checked ? h('span.muted.small', null, ` (checked ${r.checked}×)`) : null,
        r.violations?.length ? h('ul', null, r.violations.map((v) => h('li', null, v))) : null);
    })));
}

const DIFF = {
  same: { icon: '=', label: 'Same' },
  changed: { icon: '≠', label: 'Changed' },
  onlyA: { icon: '−', label: 'Only this run' },
  onlyB: { icon: '+', label: 'Only the other run' },
};

/** Compare this run with another session of the same app, step by step. */
/** The aligned steps of two runs (SessionDiff), the same steps shown only when `showSame` is ticked. */
function diffView(diff, showSame, labels = ['This run', 'Other run']) {
  const rows = diff.rows.filter((r) => showSame || r.status !== 'same');
  const c = diff.counts;
  return [
    h('p.diff-verdict', null, diff.verdict),
    h('p.muted.small', null, `${c.same} same · ${c.changed} changed · ${c.onlyA} only in ${labels[0].toLowerCase()} · ${c.onlyB} only in ${labels[1].toLowerCase()}`),
    rows.length ? h('table.diff-table', null,
      h('thead', null, h('tr', null, h('th', null, ''), h('th', null, 'Step'), h('th', null, labels[0]), h('th', null, labels[1]))),
      h('tbody', null, rows.map((r) => {
        const look = DIFF[r.status];
        const cell = (side) => (side ? h('td', null, side.summary, h('span.muted.small', null, ` +${side.atMs} ms`)) : h('td.muted', null, '—'));
        return h(`tr.diff-${r.status}`, { 'data-status': r.status },
          h('td', { title: look.label }, h('span.icon', { 'aria-hidden': 'true' }, look.icon), h('span.sr-only', null, look.label)),
          h('td', null, r.step), cell(r.a), cell(r.b));
      }))) : h('p.muted', null, 'No differences to show.'),
  ];
}

function compareCard(session) {
  const result = h('div.diff-result');
  const select = h('select', { id: 'compare-with', 'aria-label': 'Session to compare with' }, h('option', { value: '' }, 'Pick another run…'));
  const showSame = h('input', { type: 'checkbox', id: 'diff-show-same' });
  let last = null;
  const paint = () => { if (last) fill(result, ...diffView(last.diff, showSame.checked)); };
  showSame.addEventListener('change', paint);
  select.addEventListener('change', async () => {
    if (!select.value) { fill(result); last = null; return; }
    fill(result, h('p.muted', null, 'Comparing…'));
    try {
      last = await get(`/api/sessions/${encodeURIComponent(session.id)}/diff`, { with: select.value }, { quiet: true });
      paint();
    } catch (error) {
      fill(result, h('p.error', null, `Could not compare: ${error.message}`));
    }
  });
  get('/api/sessions', { q: session.bundleID }, { quiet: true }).then(({ sessions }) => {
    for (const other of sessions.filter((o) => o.id !== session.id).slice(0, 50)) {
      select.append(h('option', { value: other.id }, `${other.id.slice(0, 8)} · ${dateTime(other.firstSeen)} · ${other.eventCount} events`));
    }
  }).catch(() => {});
  return h('section.card.compare', { id: 'compare-card', 'aria-labelledby': 'compare-heading' },
    h('h2', { id: 'compare-heading' }, 'Compare with another run ',
      h('span.muted.small', null, '(the two runs’ steps aligned: what changed, what only one of them did)')),
    h('p', null, select, ' ', h('label', null, showSame, ' show the steps that are the same too')),
    result);
}

/** Run the session again on a scratch device against the local backend, then show how the replay compares. */
function replayCard(session) {
  const heading = h('h2', { id: 'replay-heading' }, 'Replay against the local backend');
  if (session.platform === 'tvos') {
    return h('section.card.replay', { id: 'replay-card', 'aria-labelledby': 'replay-heading' }, heading,
      h('p.muted', null, 'tvOS sessions cannot be replayed: their sign-in needs a person to type the code on a second screen.'));
  }
  const username = h('input', { type: 'text', id: 'replay-username', ...needs('replay'), autocomplete: 'off', spellcheck: 'false', placeholder: 'demo subscriber' });
  const password = h('input', { type: 'password', id: 'replay-password', ...needs('replay'), autocomplete: 'off', placeholder: 'demo password' });
  const button = h('button.primary', { type: 'submit', 'data-action': 'replay', ...needs('replay') }, 'Replay');
  const showSame = h('input', { type: 'checkbox', id: 'replay-show-same' });
  const result = h('div.replay-result', { 'aria-live': 'polite' });
  // The subscriber picked per MVPD, when the recording did not tell who signed in (409 replay_needs_subscriber).
  const picks = {};
  let last = null;
  const paint = () => {
    if (!last) return;
    const notes = last.steps.filter((step) => step.note);
    fill(result,
      h('p', null, last.replay ? h('a', { href: hashFor('sessions', [last.replay]), 'data-action': 'open-replay' }, `Open the replay (session ${last.replay.slice(0, 8)})`) : 'The replay recorded no events.',
        last.signedInAs ? ` · signed in as ${last.signedInAs}` : ''),
      h('ol.replay-steps', null, last.steps.map((step) => h('li', { 'data-note': step.note ? 'yes' : 'no' },
        h('span.icon', { 'aria-hidden': 'true' }, step.note ? '⚠' : '✓'), ' ', step.method === 'signIn' ? 'sign-in on the MVPD login page' : code(step.method),
        Object.keys(step.arguments).length ? h('span.muted.small', null, ` ${Object.entries(step.arguments).map(([k, v]) => `${k}=${v}`).join(', ')}`) : null,
        step.note ? h('span.step-note', null, ` — ${step.note}`) : null))),
      last.skipped.length ? h('p.muted.small', null, `Not replayed: ${last.skipped.join('; ')}.`) : null,
      notes.length ? null : h('p.muted.small', null, 'Every call was made as recorded.'),
      ...diffView(last.diff, showSame.checked, ['The recording', 'The replay']));
  };
  showSame.addEventListener('change', paint);
  const form = h('form.replay-form', null,
    h('label', null, 'Username ', username), ' ', h('label', null, 'Password ', password), ' ', button, ' ',
    h('label', null, showSame, ' show the steps that are the same too'));
  /** The recording does not tell who signed in at some MVPD: one picker per MVPD, then replay as picked. */
  const askForSubscribers = (question) => {
    const selects = question.candidates.map((c) => {
      const select = h('select', { 'data-replay-mvpd': c.mvpd, 'aria-label': `Subscriber at ${c.mvpd || 'the MVPD'}` },
        h('option', { value: '' }, 'Pick a subscriber…'), c.usernames.map((u) => h('option', { value: u }, u)));
      return h('li', null, h('strong', null, c.mvpd || 'The MVPD'), ': ', select, h('span.muted.small', null, ` — ${c.reason}`));
    });
    const go = h('button.primary', { type: 'button', 'data-action': 'replay-as-picked', ...needs('replay') }, 'Replay as picked');
    go.addEventListener('click', () => {
      for (const select of result.querySelectorAll('select[data-replay-mvpd]')) {
        if (select.value) picks[select.dataset.replayMvpd] = select.value;
      }
      if (question.candidates.every((c) => picks[c.mvpd])) form.requestSubmit();
    });
    fill(result, h('div.replay-question', { id: 'replay-question', role: 'alert' },
      h('p', null, '⚠ ', h('strong', null, question.message)), h('ul.item-list', null, selects), go));
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    fill(result, h('p.muted', null, 'Replaying… (a fresh install of the app makes the recorded calls again)'));
    try {
      const body = username.value ? { username: username.value, password: password.value } : {};
      if (Object.keys(picks).length) body.subscribers = { ...picks };
      last = await post(`/api/sessions/${encodeURIComponent(session.id)}/replay`, body, { quiet: true });
      paint();
    } catch (error) {
      last = null;
      if (error.code === 'replay_needs_subscriber' && error.body?.candidates) askForSubscribers(error.body);
      else fill(result, h('p.error', null, `Could not replay: ${error.message}`, error.detail ? h('br') : null, error.detail ?? ''));
    } finally {
      button.disabled = false;
    }
  });
  return h('section.card.replay', { id: 'replay-card', 'aria-labelledby': 'replay-heading' }, heading,
    h('p.muted.small', null, 'Runs this session again as a fresh install of the same app on a scratch device, against this console’s own backend: ',
      'the same calls in the same order. Each MVPD login signs in as the user the recording signed in as there (its own demo subscriber), ',
      'unless you type a username and password; when the recording does not tell who it was, you are asked to pick. ',
      'The replay is recorded as a new session and compared with this one step by step.'),
    form, result);
}

/** Load and render session `id` into `el`. Returns false when it failed. */
export async function renderSession(el, id) {
  let data;
  let events;
  try {
    [data, events] = await Promise.all([get(`/api/sessions/${encodeURIComponent(id)}`, undefined, { quiet: true }), sessionEvents(id)]);
  } catch (error) {
    fill(el, emptyState(error.status === 404 ? 'No such session.' : 'Could not load the session.',
      error.status === 404 ? 'It may come from another console’s history, or the history file was reset. ' : `${error.message} `,
      h('a', { href: '#/sessions' }, 'Back to all sessions')));
    return false;
  }
  const s = data.session;
  // The pane is drawn again as the session's events arrive: the person's choice stays.
  const bundleReveal = revealToggle('bundle-reveal-personal', el.querySelector('#bundle-reveal-personal')?.checked ?? false);
  fill(el,
    h('div.pane-head', null, h('h2', null, `Session ${s.id.slice(0, 8)}`),
      h('a.ghost', { href: '#/sessions', 'data-action': 'close-detail', title: 'Back to the list (Esc)' }, '×')),
    h('dl.facts.compact', null,
      h('dt', null, 'App'), h('dd', null, code(s.bundleID), ` · team ${s.teamID || '—'} · ${data.clientLabel ?? (s.platform === 'tvos' ? 'tvOS' : 'iOS')}`),
      h('dt', null, 'Programmer'), h('dd', null, s.requestorID ? code(s.requestorID) : h('span.muted', null, 'not set')),
      h('dt', null, 'Device ID'), h('dd', null, code(s.deviceID)),
      (data.visitorIDs ?? []).length ? [h('dt', null, 'Visitor ID'), h('dd', { 'data-field': 'visitorIDs' }, data.visitorIDs.map((v, i) => [i ? ', ' : '', code(v)]))] : null,
      h('dt', null, 'Seen'), h('dd', { title: `${exactTime(s.firstSeen)} → ${exactTime(s.lastSeen)}` }, `${dateTime(s.firstSeen)} → `, timeEl(s.lastSeen), ` · ${s.eventCount} events`),
      h('dt', null, 'Full ID'), h('dd', null, code(s.id))),
    h('p.links', null, h('a', { href: hashFor('events', [], { q: `session:${s.id}` }) }, 'Events of this session'), ' · ',
      h('a', { href: hashFor('network', [], { q: `session:${s.id}` }) }, 'Its HTTP exchanges'), ' · ',
      h('button.linkish', {
        type: 'button', 'data-action': 'download-bundle',
        title: 'One file for a ticket: this health card, the contract, the flow, the storage (tokens redacted), the HTTP exchanges as HAR and every event',
        onclick: () => saveExport(`/api/sessions/${encodeURIComponent(s.id)}/bundle`, undefined, `passconsole-support-${s.id.slice(0, 8)}.json`,
          { revealPersonal: bundleReveal.checked }),
      }, 'Download support bundle'), ' ', bundleReveal.el),
    healthCard(s, data.health ?? { headline: 'No health summary.', lines: [], verdicts: [] }),
    contractCard(data.contract ?? []),
    compareCard(s),
    replayCard(s),
    h('section.card', { 'aria-label': 'Flow' }, h('h2', null, 'Flow'), flowDiagram(data.flow, true, { live: false })),
    h('section.card', { 'aria-labelledby': 'timeline-heading' },
      h('h2', { id: 'timeline-heading' }, 'Timeline ', h('span.muted.small', null, '(oldest first; “+ms” is the time since the previous event)')),
      timeline(s, events)));
  return true;
}

// The flow state machine of one app instance: requestor → queued calls → picker → MVPD login → redirect →
// handleExternalURL → token → status, with the current step lit, how long it has been there, and the call queue.
import { h, sinceEl } from './dom.js';
import { now } from './format.js';

const STUCK_AFTER_MS = 30000;
const RESTING = new Set(['status']);

/** Whether the flow has waited on one step (other than its resting one) longer than usual, as of now. */
export function isStuck(flow) {
  return Boolean(flow?.current && flow.since && !RESTING.has(flow.current) && now() - Date.parse(flow.since) > STUCK_AFTER_MS);
}

/**
 * `ol.flow-diagram` with `.flow-step[data-step]`; the current step has `.current` and `aria-current="step"`. A
 * stopped app lights no step: its flow ended with it. `live: false` draws a recorded session: its last step, with
 * no ticking time and no "stuck" mark (the app may have quit long ago).
 */
export function flowDiagram(flow, running = true, { live = true } = {}) {
  const steps = flow?.steps ?? [];
  const currentIndex = running ? steps.findIndex((s) => s.id === flow?.current) : -1;
  const stuck = live && running && isStuck(flow);
  const list = h('ol.flow-diagram', { 'aria-label': 'Flow steps' }, steps.map((step, i) => {
    const state = currentIndex < 0 ? 'idle' : i < currentIndex ? 'done' : i === currentIndex ? 'current' : 'todo';
    const icon = { done: '✓', current: stuck ? '⚠' : '▶', todo: '○', idle: '○' }[state];
    const words = { done: 'passed', current: stuck ? 'stuck here' : 'now here', todo: 'not reached', idle: 'idle' }[state];
    return h('li.flow-step', {
      'data-step': step.id, class: state === 'current' ? `current${stuck ? ' stuck' : ''}` : state,
      'aria-current': state === 'current' ? 'step' : null, title: `${step.label}: ${words}`,
    }, h('span.step-icon', { 'aria-hidden': 'true' }, icon), h('span.step-label', null, step.label),
    live && state === 'current' && flow.since ? h('span.step-since', null, sinceEl(flow.since)) : null,
    h('span.sr-only', null, ` (${words})`));
  }));
  const queued = flow?.queued ?? [];
  return h('div.flow', null, list,
    h('p.flow-state', null, currentIndex < 0
      ? (running ? 'No flow in progress.' : 'The app is stopped: start it to run a flow.')
      : live
        ? [stuck ? '⚠ Waiting at ' : 'Now at ', h('strong', null, steps[currentIndex].label), ' ', flow.since ? sinceEl(flow.since) : null,
          stuck ? ' — longer than usual; check the callbacks and the Network page.' : '.']
        : ['Last step recorded: ', h('strong', null, steps[currentIndex].label), '.']),
    running && flow?.detail ? h('p.flow-detail', null, flow.detail) : null,
    running && queued.length
      ? h('div.queue', null, h('strong', null, `Queued calls (${queued.length}), waiting for setRequestor to complete: `),
        h('ol', null, queued.map((q) => h('li', null, h('code', null, q)))))
      : null);
}

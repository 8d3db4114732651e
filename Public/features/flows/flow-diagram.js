// The flow state machine of one app instance: requestor → queued calls → picker → MVPD login → redirect →
// handleExternalURL → token → status, with the current step lit, how long it has been there, and the call queue.
import { h, sinceEl } from '../../lib/dom.js';
import { now } from '../../lib/format.js';

const STUCK_AFTER_MS = 30000;
const RESTING = new Set(['status']);

/** `ol.flow-diagram` with `.flow-step[data-step]`; the current step has `.current` and `aria-current="step"`. */
export function flowDiagram(flow) {
  const steps = flow?.steps ?? [];
  const currentIndex = steps.findIndex((s) => s.id === flow?.current);
  const stuck = currentIndex >= 0 && flow.since && !RESTING.has(flow.current) && now() - Date.parse(flow.since) > STUCK_AFTER_MS;
  const list = h('ol.flow-diagram', { 'aria-label': 'Flow steps' }, steps.map((step, i) => {
    const state = currentIndex < 0 ? 'idle' : i < currentIndex ? 'done' : i === currentIndex ? 'current' : 'todo';
    const icon = { done: '✓', current: stuck ? '⚠' : '▶', todo: '○', idle: '○' }[state];
    const words = { done: 'passed', current: stuck ? 'stuck here' : 'now here', todo: 'not reached', idle: 'idle' }[state];
    return h('li.flow-step', {
      'data-step': step.id, class: state === 'current' ? `current${stuck ? ' stuck' : ''}` : state,
      'aria-current': state === 'current' ? 'step' : null, title: `${step.label}: ${words}`,
    }, h('span.step-icon', { 'aria-hidden': 'true' }, icon), h('span.step-label', null, step.label),
    state === 'current' && flow.since ? h('span.step-since', null, sinceEl(flow.since)) : null,
    h('span.sr-only', null, ` (${words})`));
  }));
  const queued = flow?.queued ?? [];
  return h('div.flow', null, list,
    h('p.flow-state', null, currentIndex < 0
      ? 'No flow running: the app is idle (or has not called setRequestor yet).'
      : [stuck ? '⚠ Waiting at ' : 'Now at ', h('strong', null, steps[currentIndex].label), ' ', flow.since ? sinceEl(flow.since) : null,
        stuck ? ' — longer than usual; check the callbacks and the Network page.' : '.']),
    flow?.detail ? h('p.flow-detail', null, flow.detail) : null,
    queued.length
      ? h('div.queue', null, h('strong', null, `Queued calls (${queued.length}), waiting for setRequestor to complete: `),
        h('ol', null, queued.map((q) => h('li', null, h('code', null, q)))))
      : null);
}

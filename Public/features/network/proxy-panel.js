// The recording proxy this console runs (`passconsole serve --proxy-upstream URL`), on the Network page: where apps
// point, where it forwards, the CA a device trusts, and its rules — hold requests, or answer a status instead of the
// real service — to see how an app copes with a failing service. Each exchange a rule acted on is named on its
// session's health card.
import { h, fill, code, emptyState } from '../../lib/dom.js';
import { get, request, ApiError } from '../../lib/api.js';
import { toast } from '../../lib/ui.js';
import { needs } from '../../lib/permissions.js';

/** A collapsed panel; it loads when opened. */
export function proxyPanel() {
  const body = h('div.proxy-body');
  const panel = h('details.proxy-panel', { id: 'proxy-panel', ontoggle: () => { if (panel.open) load(); } },
    h('summary', null, 'Recording proxy: see a real app, make a real service fail'), body);
  let view = null;

  async function load() {
    try {
      view = await get('/api/proxy', undefined, { quiet: true });
      paint();
    } catch (error) {
      view = null;
      if (error instanceof ApiError && error.status === 404) {
        fill(body, emptyState('This console runs no recording proxy.',
          'Start it with ', code('passconsole serve --proxy-upstream https://<service>'),
          ' (or ', code('passconsole proxy --upstream … --report-to <this console>'), ') and point the app’s service URL at it.'));
      } else {
        fill(body, emptyState('Could not read the proxy.', error.message));
      }
    }
  }

  async function save(rules, done) {
    try {
      view = await request('PUT', '/api/proxy/rules', { body: { rules } });
      paint();
      toast(done, { kind: 'success' });
    } catch (error) {
      toast('The proxy’s rules did not change.', { kind: 'error', detail: error.message });
    }
  }

  function paint() {
    const rules = view.rules ?? [];
    const field = (name, label, attrs = {}) => h('label', null, label, h('input', { name, ...attrs }));
    const form = h('form.proxy-rule-form', {
      onsubmit: (e) => {
        e.preventDefault();
        const data = new FormData(form);
        const rule = {};
        for (const key of ['name', 'path', 'requestor', 'mvpd']) { const v = String(data.get(key) ?? '').trim(); if (v) rule[key] = v; }
        const delay = String(data.get('delayMs') ?? '').trim();
        const status = String(data.get('status') ?? '').trim();
        if (delay) rule.delayMs = Number(delay);
        if (status) rule.status = Number(status);
        if (data.get('drop') === 'on') rule.drop = true;
        save([...rules, rule], 'Rule added: the next matching request meets it.');
      },
    },
      field('path', 'Path contains', { placeholder: 'authorize', maxlength: 512 }),
      field('requestor', 'Programmer', { placeholder: 'any', maxlength: 512 }),
      field('mvpd', 'MVPD', { placeholder: 'any', maxlength: 512 }),
      field('delayMs', 'Hold (ms)', { type: 'number', min: 0, max: 60000, placeholder: '0' }),
      field('status', 'Answer status', { type: 'number', min: 400, max: 599, placeholder: 'forward' }),
      h('label.inline', { title: 'Close the connection without any answer, as a service that goes silent' },
        h('input', { type: 'checkbox', name: 'drop' }), ' Drop (no answer)'),
      field('name', 'Name (optional)', { maxlength: 512 }),
      h('button', { type: 'submit', 'data-action': 'add-proxy-rule', ...needs('change') }, 'Add rule'));
    fill(body,
      h('dl.facts.compact', null,
        h('dt', null, 'Apps send to'), h('dd', null, code(view.url), ' (', code(`${view.url}/adobe-services`), ' as the service provider)'),
        h('dt', null, 'Forwards to'), h('dd', null, code(view.upstream)),
        view.caCertificateURL ? [h('dt', null, 'Device trust'), h('dd', null,
          h('a', { href: view.caCertificateURL, download: 'passconsole-proxy-ca.pem' }, 'Download the local CA'),
          ' and install it on the device, so it trusts the proxy’s HTTPS.')] : null),
      rules.length
        ? h('ol.proxy-rules', { 'aria-label': 'Rules, first match acts' }, rules.map((rule, index) => h('li', null,
          view.ruleWords?.[index] ?? JSON.stringify(rule), ' ',
          h('button.linkish', { type: 'button', 'data-action': 'remove-proxy-rule', ...needs('change'),
            onclick: () => save(rules.filter((_, i) => i !== index), 'Rule removed.') }, 'remove'))))
        : h('p.muted', null, 'No rules: every request is forwarded as it came.'),
      form);
  }

  return panel;
}

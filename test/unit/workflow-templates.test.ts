import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EMPTY_ALLOW_LIST } from '../../src/infra/outbound.ts';
import { checkActions, keepSecrets, publicAction } from '../../src/modules/workflows/actions-fns.ts';
import { dryRun, sampleSubject } from '../../src/modules/workflows/dry-run-fns.ts';
import { renderTemplate, templateErrors, type TemplateAlert } from '../../src/modules/workflows/workflows-fns.ts';
import { MASKED_SECRET, type WorkflowAction, type WorkflowActionInput } from '../../src/modules/workflows/workflows-schemas.ts';
import { LINEAR_BOUND_MS, within } from '../support/within.ts';

const WORKFLOWS_FNS = new URL('../../src/modules/workflows/workflows-fns.ts', import.meta.url);

const alert: TemplateAlert = {
  id: 'alt_1',
  title: 'Disk full on db1',
  severity: 'high',
  status: 'firing',
  source: 'node-exporter',
  description: null,
  fingerprint: 'fp-1',
  clientId: 'cli_1',
  integrationId: null,
  labels: { env: 'prod', service: 'checkout', 'team.name': 'payments' },
  annotations: { runbook: 'https://runbooks/disk' },
};

describe('renderTemplate', () => {
  const table: Array<[string, string]> = [
    ['{{alert.title}}', 'Disk full on db1'],
    ['[{{alert.severity}}] {{alert.title}} ({{alert.source}})', '[high] Disk full on db1 (node-exporter)'],
    ['{{ alert.title }}', 'Disk full on db1'],
    ['{{alert.id}}/{{alert.fingerprint}}/{{alert.clientId}}/{{alert.status}}', 'alt_1/fp-1/cli_1/firing'],
    ['svc={{alert.labels.service}}', 'svc=checkout'],
    ['{{alert.labels.team.name}}', 'payments'],
    ['{{alert.annotations.runbook}}', 'https://runbooks/disk'],
    ['#{{incident.number}} {{incident.title}}', '#42 Checkout down'],
    ['no placeholders', 'no placeholders'],
    ['', ''],
    // Absent values and unknown placeholders render empty.
    ['[{{alert.description}}]', '[]'],
    ['[{{alert.integrationId}}]', '[]'],
    ['[{{alert.labels.region}}]', '[]'],
    ['[{{alert.annotations.none}}]', '[]'],
    ['[{{alert.nope}}]', '[]'],
    ['[{{alert}}]', '[]'],
    ['[{{}}]', '[]'],
    ['[{{env.HOME}}]', '[]'],
    ['[{{incident.assigneeId}}]', '[]'],
    // No prototype reach: only own properties of known fields.
    ['[{{alert.constructor}}]', '[]'],
    ['[{{alert.__proto__}}]', '[]'],
    ['[{{alert.labels.constructor}}]', '[]'],
    ['[{{alert.labels.__proto__}}]', '[]'],
    ['[{{alert.labels.toString}}]', '[]'],
    ['[{{alert.title.length}}]', '[]'],
    // No code: the text between braces is a name, never evaluated.
    ['{{process.exit(1)}}', ''],
    ["{{alert.title + require('fs')}}", ''],
    // Not placeholders: left as they are.
    ['{{alert.title', '{{alert.title'],
    ['{alert.title}', '{alert.title}'],
    ['{{{alert.title}}}', '{Disk full on db1}'],
  ];
  for (const [template, expected] of table) {
    it(`${JSON.stringify(template)} → ${JSON.stringify(expected)}`, () => {
      assert.equal(renderTemplate(template, { alert, incident: { number: 42, title: 'Checkout down' } }), expected);
    });
  }

  it('renders incident placeholders empty without an incident', () => {
    assert.equal(renderTemplate('#{{incident.number}}: {{alert.title}}', { alert }), '#: Disk full on db1');
    assert.equal(renderTemplate('#{{incident.number}}', { alert, incident: null }), '#');
  });

  it('reads label keys that look like prototype names as data when they are own keys', () => {
    const labels = JSON.parse('{"__proto__":"p","constructor":"c"}') as Record<string, string>;
    assert.equal(renderTemplate('{{alert.labels.__proto__}}-{{alert.labels.constructor}}', { alert: { ...alert, labels } }), 'p-c');
  });

  it('is linear: a long run of braces renders, on a thread ended if it has not within the bound', async () => {
    const template = '{{'.repeat(100_000) + 'alert.title' + '}'.repeat(3);
    const rendered = await within(LINEAR_BOUND_MS, { renderTemplate: [WORKFLOWS_FNS, 'renderTemplate'] }, (d, t: string, a: TemplateAlert) => d.renderTemplate(t, { alert: a }) as string, template, alert);
    assert.equal(rendered.endsWith('Disk full on db1}'), true);
  });
});

describe('templateErrors (checked when saved)', () => {
  it('accepts known placeholders', () => {
    for (const t of ['{{alert.title}}', '{{ alert.labels.x }} {{alert.annotations.y}}', '{{incident.number}} {{incident.title}}', 'plain {{alert.id}}', '{{alert.title']) {
      assert.deepEqual(templateErrors(t, '/t'), [], t);
    }
  });
  it('refuses unknown roots and unknown fields, naming the placeholder', () => {
    for (const [t, message] of [
      ['{{env.HOME}}', /unknown placeholder \{\{env.HOME\}\}.*alert\. or incident\./],
      ['{{ process }}', /unknown placeholder \{\{process\}\}/],
      ['{{}}', /unknown placeholder/],
      ['{{alert}}', /use alert\.<id\|title/],
      ['{{alert.nope}}', /use alert\./],
      ['{{alert.labels.}}', /use alert\./],
      ['{{alert.constructor}}', /use alert\./],
      ['{{incident.assignee}}', /incident\.number or incident\.title/],
    ] as const) {
      const errors = templateErrors(`x ${t} y`, '/actions/0/title');
      assert.equal(errors.length, 1, t);
      assert.equal(errors[0]?.path, '/actions/0/title');
      assert.match(errors[0]?.message ?? '', message, t);
    }
  });
});

describe('actions: checked and stored with defaults', () => {
  it('fills defaults and lists the users and schedules named', () => {
    const r = checkActions([
      { type: 'create_incident' },
      { type: 'assign', scheduleId: 'sch_1' },
      { type: 'email', to: ['ops@example.com'], toOnCall: 'sch_2' },
      { type: 'assign', userId: 'usr_1', scheduleId: null },
      { type: 'suppress' },
    ], EMPTY_ALLOW_LIST);
    assert.ok(r.ok);
    assert.deepEqual(r.actions, [
      { type: 'create_incident', groupBy: [], title: '{{alert.title}}' },
      { type: 'assign', scheduleId: 'sch_1', userId: null },
      { type: 'email', to: ['ops@example.com'], toOnCall: 'sch_2', subject: '' },
      { type: 'assign', scheduleId: null, userId: 'usr_1' },
      { type: 'suppress' },
    ]);
    assert.deepEqual(r.references, [
      { kind: 'schedule', id: 'sch_1', path: '/actions/1/scheduleId' },
      { kind: 'schedule', id: 'sch_2', path: '/actions/2/toOnCall' },
      { kind: 'user', id: 'usr_1', path: '/actions/3/userId' },
    ]);
  });

  const bad: Array<[WorkflowActionInput[], string, RegExp]> = [
    [[{ type: 'assign', userId: 'usr_1' }], '/actions/0/type', /create_incident action before it/],
    [[{ type: 'create_incident' }, { type: 'assign' }], '/actions/1', /exactly one of scheduleId or userId/],
    [[{ type: 'create_incident' }, { type: 'assign', userId: 'u', scheduleId: 's' }], '/actions/1', /exactly one/],
    [[{ type: 'email' }], '/actions/0', /needs recipients/],
    [[{ type: 'email', to: [], toOnCall: null }], '/actions/0', /needs recipients/],
    [[{ type: 'email', to: ['a@b.c'], subject: '{{alert.nope}}' }], '/actions/0/subject', /unknown placeholder/],
    [[{ type: 'create_incident', title: '{{env.SECRET}}' }], '/actions/0/title', /unknown placeholder/],
    [[{ type: 'create_incident', groupBy: ['labels.service', 'hostname'] }], '/actions/0/groupBy/1', /alert field/],
    [[{ type: 'create_incident', groupBy: ['labels.a', 'labels.a'] }], '/actions/0/groupBy/1', /twice/],
    [[{ type: 'suppress' }, { type: 'webhook', url: 'ftp://x.example', secret: 's'.repeat(16) }], '/actions/1/url', /http or https/],
    [[{ type: 'webhook', url: 'not a url', secret: 's'.repeat(16) }], '/actions/0/url', /not valid/],
    [[{ type: 'webhook', url: 'http://169.254.169.254/latest', secret: 's'.repeat(16) }], '/actions/0/url', /linkLocal/],
    [[{ type: 'notify', channel: 'ntfy', target: { serverUrl: 'https://ntfy.example', topic: 'bad topic' } }], '/actions/0/target/topic', /pattern/],
    [[{ type: 'notify', channel: 'slack', target: { webhookUrl: 'http://10.1.2.3/hook' } }], '/actions/0/target/webhookUrl', /private/],
    [[{ type: 'notify', channel: 'teams', target: { url: 'https://x.example' } }], '/actions/0/target/webhookUrl', /required/],
    [[{ type: 'webhook', url: 'https://user:pw@x.example/', secret: 's'.repeat(16) }], '/actions/0/url', /credentials/],
    [[{ type: 'webhook', url: 'https://x.example/', secret: 'short' }], '/actions/0/secret', /16–256/],
    [[{ type: 'add_labels', labels: { team: '{{alert.nope}}' } }], '/actions/0/labels/team', /unknown placeholder/],
    [[{ type: 'add_labels', labels: { constructor: 'x' } }], '/actions/0/labels/constructor', /keys must be/],
    [[{ type: 'add_labels', labels: { '': 'x' } }], '/actions/0/labels/', /keys must be/],
  ];
  for (const [actions, path, message] of bad) {
    it(`${JSON.stringify(actions).slice(0, 100)} → ${path}`, () => {
      const r = checkActions(actions, EMPTY_ALLOW_LIST);
      assert.ok(!r.ok);
      assert.ok(r.errors.some((e) => e.path === path && message.test(e.message)), JSON.stringify(r.errors));
    });
  }

  it('the masked secret keeps the stored secret of the webhook to the same url, and is refused without one', () => {
    const stored: WorkflowAction[] = [
      { type: 'webhook', url: 'https://a.example/', secret: 'secret-of-a-0123456789' },
      { type: 'webhook', url: 'https://b.example/', secret: 'secret-of-b-0123456789' },
    ];
    const sent: WorkflowAction[] = [
      { type: 'suppress' },
      { type: 'webhook', url: 'https://b.example/', secret: MASKED_SECRET },
      { type: 'webhook', url: 'https://a.example/', secret: MASKED_SECRET },
      { type: 'webhook', url: 'https://a.example/', secret: 'a-brand-new-secret-value' },
    ];
    const kept = keepSecrets(sent, stored);
    assert.ok(kept.ok);
    assert.deepEqual(kept.actions.map((a) => (a.type === 'webhook' ? a.secret : null)), [null, 'secret-of-b-0123456789', 'secret-of-a-0123456789', 'a-brand-new-secret-value']);
    const moved = keepSecrets([{ type: 'webhook', url: 'https://c.example/', secret: MASKED_SECRET }], stored);
    assert.ok(!moved.ok);
    assert.deepEqual(moved.errors.map((e) => e.path), ['/actions/0/secret']);
    assert.ok(!keepSecrets([{ type: 'webhook', url: 'https://a.example/', secret: MASKED_SECRET }], []).ok, 'nothing to keep on create');
    assert.deepEqual(publicAction(stored[0] as WorkflowAction), { type: 'webhook', url: 'https://a.example/', secret: MASKED_SECRET });
  });

  it('a notify action\'s secrets are masked, and kept when the mask comes back for the same target of the same channel', () => {
    const stored: WorkflowAction[] = [{ type: 'notify', channel: 'ntfy', target: { serverUrl: 'https://ntfy.example', topic: 'ops', token: 'tk_stored' } }];
    assert.deepEqual(publicAction(stored[0] as WorkflowAction), { type: 'notify', channel: 'ntfy', target: { serverUrl: 'https://ntfy.example', topic: 'ops', token: MASKED_SECRET } });
    const kept = keepSecrets([{ type: 'suppress' }, { type: 'notify', channel: 'ntfy', target: { serverUrl: 'https://ntfy.example', topic: 'ops', token: MASKED_SECRET } }], stored);
    assert.ok(kept.ok);
    assert.deepEqual(kept.actions[1], stored[0]);
    const other = keepSecrets([{ type: 'notify', channel: 'ntfy', target: { serverUrl: 'https://ntfy.example', topic: 'dev', token: MASKED_SECRET } }], stored);
    assert.deepEqual(!other.ok && other.errors.map((e) => e.path), ['/actions/0/target/token'], 'another topic does not get the token');
  });
});

describe('dry run', () => {
  const names = { users: new Map([['usr_1', { name: 'Jane', email: 'jane@example.com' }]]), schedules: new Map([['sch_1', 'Primary']]) };
  const sample = sampleSubject({ title: 'Checkout slow', severity: 'medium', labels: { service: 'checkout' } });

  it('fills the sample as ingest would: firing, derived fingerprint', () => {
    assert.equal(sample.status, 'firing');
    assert.match(sample.fingerprint, /^[0-9a-f]{40}$/);
    assert.equal(sample.source, null);
  });

  it('describes each action with templates rendered and applies changes to the sample in order', () => {
    const actions: WorkflowAction[] = [
      { type: 'create_incident', groupBy: ['labels.service', 'labels.region'], title: '{{alert.labels.service}}: {{alert.title}}' },
      { type: 'assign', scheduleId: 'sch_1', userId: null },
      { type: 'assign', scheduleId: null, userId: 'usr_gone' },
      { type: 'set_severity', severity: 'critical' },
      { type: 'add_labels', labels: { team: '{{alert.labels.service}}-team' } },
      { type: 'email', to: ['ops@example.com', 'dev@example.com'], toOnCall: 'sch_1', subject: '[{{alert.severity}}] {{incident.title}} {{alert.labels.team}}' },
      { type: 'webhook', url: 'https://hooks.example.com/x', secret: 'never-shown-0123456789' },
      { type: 'notify', channel: 'slack', target: { webhookUrl: 'https://hooks.slack.com/services/never-shown' } },
      { type: 'suppress' },
    ];
    const r = dryRun({ conditions: { field: 'labels.service', op: 'eq', value: 'checkout' }, actions }, sample, names);
    assert.equal(r.matched, true);
    assert.deepEqual(r.actions.map((a) => [a.index, a.type]), actions.map((a, i) => [i, a.type]));
    assert.deepEqual(r.actions.map((a) => a.description), [
      'create or join the incident grouped by labels.service=checkout, labels.region=(absent), titled "checkout: Checkout slow"',
      'assign the incident to the on-call of schedule "Primary"',
      'assign the incident to user usr_gone (not found)',
      'set the severity to critical (was medium)',
      'add labels team=checkout-team',
      'email ops@example.com, dev@example.com and the on-call of schedule "Primary", subject "[critical] checkout: Checkout slow checkout-team"',
      'POST the alert as JSON, signed with HMAC-SHA256, to https://hooks.example.com/x',
      'post the alert to Slack (incoming webhook): https://hooks.slack.com/…',
      'suppress the alert',
    ]);
    assert.ok(!JSON.stringify(r).includes('never-shown'));
    assert.equal(sample.severity, 'medium', 'the sample given is not changed');
    assert.deepEqual(sample.labels, { service: 'checkout' });
  });

  it('an email without a subject shows the default one, as notifications writes it', () => {
    const email: WorkflowAction = { type: 'email', to: ['ops@example.com'], toOnCall: null, subject: '' };
    assert.equal(dryRun({ conditions: null, actions: [email] }, sample, names).actions[0]?.description, 'email ops@example.com, subject "[MEDIUM] Checkout slow"');
    const resolved = { ...sample, status: 'resolved' };
    assert.equal(dryRun({ conditions: null, actions: [email] }, resolved, names).actions[0]?.description, 'email ops@example.com, subject "[RESOLVED] [MEDIUM] Checkout slow"');
  });

  it('does not match: no actions', () => {
    assert.deepEqual(dryRun({ conditions: { not: { field: 'labels.service', op: 'exists', value: true } }, actions: [{ type: 'suppress' }] }, sample, names), { matched: false, actions: [] });
  });
});

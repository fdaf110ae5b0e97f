import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Alert } from '../../src/modules/alerts/alerts-schemas.ts';
import {
  moreAlerts,
  alertUrl, displayUrl, emailHtml, emailSubject, emailText, escapeHtml, httpOutcome, idempotencyKey, messageId,
  recipients, signature, smtpCode, smtpOutcome, webhookBody, type MessageContext,
} from '../../src/modules/notifications/notifications-fns.ts';

const alert: Alert = {
  id: 'alt_1',
  title: 'Disk almost full on db1',
  severity: 'critical',
  status: 'firing',
  source: 'node-exporter',
  description: 'Only 3% left on /var/lib/postgresql.\nGrowth 2 GB/h.',
  fingerprint: 'fp1',
  labels: { host: 'db1', env: 'prod' },
  annotations: { runbook_url: 'https://runbooks.example.com/disk', dashboard: 'https://grafana.example.com/d/abc?var-host=db1&x=<y>', summary: 'disk <full> & "soon"' },
  integrationId: 'int_1',
  clientId: null,
  incidentId: 'inc_1',
  suppressionId: null,
  occurrences: 3,
  flapping: false,
  lastSeenAt: '2026-11-21T10:05:00.000Z',
  acknowledgedAt: null,
  acknowledgedBy: null,
  resolvedAt: null,
  resolvedBy: null,
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:05:00.000Z',
};
const ctx: MessageContext = {
  alert,
  incident: {
    id: 'inc_1', number: 7, title: 'Storage trouble', severity: 'critical', status: 'triggered', assigneeId: null, alertCount: 2,
    clientId: null, workflowId: 'wf_1', groupKey: '["db1"]', acknowledgedAt: null, resolvedAt: null, snoozedUntil: null,
    createdAt: '2026-11-21T10:00:00.000Z', updatedAt: '2026-11-21T10:00:00.000Z',
  },
  workflow: { id: 'wf_1', name: 'Page the DBAs' },
  alertUrl: alertUrl('https://alertflow.example.com', 'alt_1'),
};

describe('webhook signature', () => {
  it('is sha256= and the hex HMAC-SHA256 of the body (RFC 4231 test case 2)', () => {
    assert.equal(signature('what do ya want for nothing?', 'Jefe'), 'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    assert.equal(signature(Buffer.from('what do ya want for nothing?'), 'Jefe'), signature('what do ya want for nothing?', 'Jefe'), 'bytes or text alike');
    assert.notEqual(signature('{"a":1}', 'secret-1'), signature('{"a":1} ', 'secret-1'), 'the exact bytes count');
  });

  it('the body names the event, delivery, alert, incident and workflow', () => {
    const body = JSON.parse(webhookBody(ctx, 'ntf_1', 'alert.created', '2026-11-21T10:06:00.000Z'));
    assert.deepEqual(Object.keys(body), ['event', 'deliveryId', 'sentAt', 'alert', 'incident', 'workflow']);
    assert.equal(body.event, 'alert.created');
    assert.equal(body.deliveryId, 'ntf_1');
    assert.deepEqual(body.alert, alert);
    assert.equal(body.incident.number, 7);
    assert.deepEqual(body.workflow, { id: 'wf_1', name: 'Page the DBAs' });
    assert.equal(JSON.parse(webhookBody({ ...ctx, incident: null }, 'ntf_1', 'e', 't')).incident, null);
  });
});

describe('email message', () => {
  it('subject: [SEVERITY] title, status prefix when resolved or acknowledged, or the action\'s own (one line)', () => {
    assert.equal(emailSubject(alert), '[CRITICAL] Disk almost full on db1');
    assert.equal(emailSubject({ ...alert, status: 'resolved' }), '[RESOLVED] [CRITICAL] Disk almost full on db1');
    assert.equal(emailSubject({ ...alert, status: 'acknowledged', severity: 'low' }), '[ACKNOWLEDGED] [LOW] Disk almost full on db1');
    assert.equal(emailSubject(alert, '[critical] db1 is full'), '[critical] db1 is full');
    assert.equal(emailSubject(alert, '  '), '[CRITICAL] Disk almost full on db1', 'a blank subject is the default');
    assert.equal(emailSubject({ ...alert, title: 'a\r\nBcc: victim@example.com' }), '[CRITICAL] a Bcc: victim@example.com', 'no header injection');
    assert.ok(emailSubject({ ...alert, title: 'x'.repeat(1000) }).length <= 250);
  });

  it('text body: description, facts, labels, annotations and links, the alert\'s link', () => {
    const text = emailText(ctx);
    assert.ok(text.includes('Only 3% left on /var/lib/postgresql.\nGrowth 2 GB/h.'), 'description verbatim');
    for (const part of ['Severity: critical', 'Status: firing', 'Source: node-exporter', 'Incident: #7 Storage trouble (triggered)', 'Occurrences: 3',
      '  env=prod', '  host=db1', '  runbook_url: https://runbooks.example.com/disk', '  summary: disk <full> & "soon"',
      'View the alert: https://alertflow.example.com/alerts/alt_1', 'Page the DBAs']) {
      assert.ok(text.includes(part), `has ${part}`);
    }
    assert.ok(text.indexOf('Only 3%') < text.indexOf('Labels:'), 'description first');
    assert.ok(emailText({ ...ctx, alert: { ...alert, description: null } }).includes('(no description)'));
  });

  it('HTML body: every value escaped, only http(s) annotations become links', () => {
    const html = emailHtml({ ...ctx, alert: { ...alert, title: '<script>alert(1)</script>', annotations: { ...alert.annotations, evil: 'javascript:alert(1)' } } });
    assert.ok(!html.includes('<script>'), 'title escaped');
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(html.includes('<a href="https://runbooks.example.com/disk">runbook_url</a>'));
    assert.ok(html.includes('<a href="https://grafana.example.com/d/abc?var-host=db1&amp;x=&lt;y&gt;">dashboard</a>'), 'href escaped');
    assert.ok(!html.includes('href="javascript:'), 'no javascript: link');
    assert.ok(html.includes('disk &lt;full&gt; &amp; &quot;soon&quot;'));
    assert.ok(html.includes('Only 3% left'));
    assert.ok(html.includes('<a href="https://alertflow.example.com/alerts/alt_1">'));
    assert.equal(escapeHtml(`<a href='x'>&"`), '&lt;a href=&#39;x&#39;&gt;&amp;&quot;');
  });

  it('recipients: the action\'s and the on-call\'s, each once', () => {
    assert.deepEqual(recipients(['ops@example.com', 'OPS@example.com ', ''], 'ann@example.com'), ['ops@example.com', 'ann@example.com']);
    assert.deepEqual(recipients(undefined, null), []);
    assert.deepEqual(recipients(['ann@example.com'], 'Ann@example.com'), ['ann@example.com']);
  });

  it('Message-ID: stable per notification, at the host of BASE_URL', () => {
    assert.equal(messageId('ntf_AbC-1_x', 'https://alertflow.example.com:8443'), '<ntf_AbC-1_x@alertflow.example.com>');
    assert.equal(messageId('ntf_1', 'http://[::1]:8080'), '<ntf_1@::1>');
  });
});

describe('outcomes and keys', () => {
  it('HTTP: 2xx sent, 5xx retried, 3xx and 4xx final', () => {
    const table: Array<[number, string]> = [[200, 'sent'], [204, 'sent'], [299, 'sent'], [301, 'failed'], [302, 'failed'], [400, 'failed'], [401, 'failed'], [404, 'failed'], [429, 'failed'], [500, 'retry'], [502, 'retry'], [503, 'retry'], [100, 'failed']];
    for (const [status, outcome] of table) assert.equal(httpOutcome(status), outcome, String(status));
  });

  it('SMTP: 5xx final, 4xx and lost connections retried, refused before sending final', () => {
    assert.equal(smtpOutcome({ responseCode: 550, code: 'EENVELOPE' }), 'failed');
    assert.equal(smtpOutcome({ responseCode: 451, code: 'EENVELOPE' }), 'retry');
    assert.equal(smtpOutcome({ responseCode: 421 }), 'retry');
    assert.equal(smtpOutcome({ code: 'ECONNECTION' }), 'retry');
    assert.equal(smtpOutcome({ code: 'ETIMEDOUT' }), 'retry');
    assert.equal(smtpOutcome(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ESOCKET' })), 'retry');
    assert.equal(smtpOutcome({ code: 'EENVELOPE' }), 'failed');
    assert.equal(smtpOutcome({ code: 'EAUTH' }), 'failed');
    assert.equal(smtpCode('250 2.0.0 OK: queued as 123'), 250);
    assert.equal(smtpCode('garbage'), null);
  });

  it('idempotency key: alert, workflow, action index', () => {
    assert.equal(idempotencyKey('alt_1', 'wf_1', 2), 'alt_1:wf_1:2');
  });

  it('webhook URLs in the log never show credentials', () => {
    assert.equal(displayUrl('https://user:pw@hooks.example.com/x?y=1'), 'https://hooks.example.com/x?y=1');
    assert.equal(displayUrl('https://hooks.example.com/x'), 'https://hooks.example.com/x');
  });
});

describe('a storm in the pages that follow it', () => {
  it('says how many more alerts the incident holds, nothing for one alert', () => {
    assert.equal(moreAlerts(null), null);
    assert.equal(moreAlerts({ alertCount: 1 }), null);
    assert.equal(moreAlerts({ alertCount: 2 }), '+1 alert');
    assert.equal(moreAlerts({ alertCount: 500 }), '+499 alerts');
    const alert = { title: 'checkout pod 3 down', severity: 'critical', status: 'firing' } as Alert;
    assert.equal(emailSubject(alert, undefined, { alertCount: 500 }), '[CRITICAL] checkout pod 3 down (+499 alerts)');
    assert.equal(emailSubject(alert, 'Own subject', { alertCount: 500 }), 'Own subject');
  });
});

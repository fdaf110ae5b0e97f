import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { CursorCodec } from '../../src/lib/pagination.ts';
import { forIncident, notificationsRepo } from '../../src/modules/notifications/notifications-repo.ts';
import { answersRepo } from '../../src/modules/notifications/answers-repo.ts';
import {
  MAX_ATTEMPTS, notificationsService, RetryableDeliveryError, type NotificationsDeps, type PrepareInput,
} from '../../src/modules/notifications/notifications-service.ts';
import type { Delivery } from '../../src/modules/notifications/notifications-schemas.ts';
import { CHANNELS } from '../../src/modules/notifications/channels/registry.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { startHttpSink, startSmtpSink, type HttpSink, type SmtpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

const SECRET = 'wh-secret-0123456789';

/** What a mail client shows for a header: RFC 2047 encoded words decoded, the space between two of them dropped. */
function decodeEncodedWords(header: string): string {
  return header.replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=(\s+(?==\?))?/g, (_m, _cs: string, enc: string, text: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'));
}

eachStore('notification delivery', { together: true }, (kind) => {
  let h: Harness;
  let smtp: SmtpSink;
  let web: HttpSink;
  /** Listens on 127.0.0.2, a loopback address the allow-list (127.0.0.1/32) does not permit. */
  let offList: HttpSink;

  before(async () => {
    smtp = await startSmtpSink();
    web = await startHttpSink();
    offList = await startHttpSink('127.0.0.2');
    h = await startHarness(kind, { OUTBOUND_ALLOW: '127.0.0.1/32', SMTP_URL: smtp.url, SMTP_FROM: 'AlertFlow <alerts@alertflow.test>' });
  });
  after(async () => {
    await h.close();
    await Promise.all([smtp.close(), web.close(), offList.close()]);
  });

  let n = 0;
  /** An alert (through ingest) and a workflow row (disabled: the job workers running in the container leave it alone). */
  async function setup(org: Org = h.org, alert: Record<string, unknown> = {}) {
    n += 1;
    const integ = await h.integration(org);
    const sent = await h.ingest(integ.path, {
      title: `Disk almost full on db${n}`,
      severity: 'high',
      source: 'node-exporter',
      description: `Only 3% left on /var/lib/postgresql (host db${n}).`,
      labels: { host: `db${n}`, env: 'prod' },
      annotations: { runbook_url: 'https://runbooks.example.com/disk', dashboard: 'https://grafana.example.com/d/disk' },
      ...alert,
    });
    assert.equal(sent.status, 200, sent.raw);
    const alertId = sent.body.data.alerts[0].alertId as string;
    const workflowId = `wf_test_${n}`;
    const now = h.clock.now();
    await h.c.store.db.insertInto('workflows').values({
      id: workflowId, org_id: org.id, name: `Page the DBAs ${n}`, description: null, enabled: 0, trigger: 'alert.created',
      conditions: null, actions: '[]', created_at: now, updated_at: now,
    }).execute();
    return { alertId, workflowId };
  }

  const input = (org: Org, ids: { alertId: string; workflowId: string }, channel: 'email' | 'webhook', target: string, actionIndex = 0): PrepareInput =>
    ({ orgId: org.id, alertId: ids.alertId, incidentId: null, workflowId: ids.workflowId, actionIndex, channel, target });

  async function prepared(channel: 'email' | 'webhook', target: string) {
    const ids = await setup();
    const { id, created } = await h.c.notifications.prepare(h.c.store.db, input(h.org, ids, channel, target));
    assert.equal(created, true);
    return { ...ids, id };
  }

  const log = async (alertId: string, org: Org = h.org) => {
    const r = await h.req('GET', `/api/v1/alerts/${alertId}/notifications`, { key: org.key });
    assert.equal(r.status, 200, r.raw);
    return r.body.data as Array<Record<string, any>>;
  };

  const hitsTo = (sink: HttpSink, path: string) => sink.hits.filter((x) => x.path === path);

  it('email: a real SMTP server receives it, with severity and title in the subject and the description in the body', async () => {
    const { id, alertId } = await prepared('email', 'ops@example.com');
    const before = smtp.mails.length;
    const result = await h.c.notifications.deliver(id, { channel: 'email', target: { to: 'ops@example.com' } });
    assert.equal(result.status, 'sent');
    assert.equal(smtp.mails.length, before + 1);
    const mail = smtp.mails.at(-1)!;
    assert.deepEqual(mail.to, ['ops@example.com']);
    assert.equal(mail.from, 'alerts@alertflow.test');
    assert.equal(mail.headers.subject, `[HIGH] Disk almost full on db${n}`);
    assert.ok(mail.text.includes(`Only 3% left on /var/lib/postgresql (host db${n}).`), mail.text);
    assert.ok(mail.text.includes(`host=db${n}`));
    assert.ok(mail.text.includes('runbook_url: https://runbooks.example.com/disk'));
    assert.ok(mail.text.includes(`View the alert: http://alertflow.test/alerts/${alertId}`));
    assert.equal(mail.headers['message-id'], `<${id}@alertflow.test>`, 'a stable Message-ID receivers can deduplicate on');
    assert.equal(mail.headers['x-alertflow-delivery'], id);

    const entries = await log(alertId);
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0], {
      id, alertId, incidentId: null, workflowId: entries[0]!.workflowId, actionIndex: 0, source: 'workflow', step: null, recipientId: null, channel: 'email',
      target: 'ops@example.com', status: 'sent', attempts: 1, lastError: null, responseStatus: 250, providerStatus: null, answers: [],
      createdAt: new Date(h.clock.now()).toISOString(), updatedAt: new Date(h.clock.now()).toISOString(), sentAt: new Date(h.clock.now()).toISOString(),
    });

    const again = await h.c.notifications.deliver(id, { channel: 'email', target: { to: 'ops@example.com' } });
    assert.equal(again.status, 'sent');
    assert.equal(smtp.mails.length, before + 1, 'a re-run job after the result was recorded sends nothing');
    const wrong = await prepared('email', 'ops@example.com');
    const mismatched = await h.c.notifications.deliver(wrong.id, { channel: 'webhook', target: { url: `${web.base}/x` } });
    assert.equal(mismatched.status, 'failed', 'a delivery of another channel than its notification\'s is refused');
    assert.match(mismatched.lastError ?? '', /A webhook delivery cannot deliver a email notification/);
  });

  it('email: an encoded word in a title is shown as written, not decoded into another subject', async () => {
    const title = 'Disk =?utf-8?B?W1JFU09MVkVEXSBhbGwgZmluZQ==?= on db1';
    const ids = await setup(h.org, { title });
    const { id } = await h.c.notifications.prepare(h.c.store.db, input(h.org, ids, 'email', 'ops@example.com'));
    assert.equal((await h.c.notifications.deliver(id, { channel: 'email', target: { to: 'ops@example.com' } })).status, 'sent');
    const subject = smtp.mails.at(-1)!.headers.subject as string;
    assert.ok(!subject.includes('W1JFU09MVkVEXSBhbGwgZmluZQ=='), `the sender's encoded word is not passed raw: ${subject}`);
    assert.equal(decodeEncodedWords(subject), `[HIGH] ${title}`, 'a mail client shows the literal title');
  });

  it('email: the subject comes from the action when given; a 5xx refusal is final, a 4xx one is retried', async () => {
    const a = await prepared('email', 'x');
    await h.c.notifications.deliver(a.id, { channel: 'email', target: { to: 'team@example.com' } }, { subject: '[high] custom subject' });
    assert.equal(smtp.mails.at(-1)!.headers.subject, '[high] custom subject');

    smtp.rejectRecipient.set('gone@example.com', 550);
    const b = await prepared('email', 'gone@example.com');
    const before = smtp.mails.length;
    const failed = await h.c.notifications.deliver(b.id, { channel: 'email', target: { to: 'gone@example.com' } });
    assert.equal(failed.status, 'failed');
    assert.equal(failed.responseStatus, 550);
    assert.match(failed.lastError ?? '', /^SMTP: /);

    smtp.rejectRecipient.set('busy@example.com', 451);
    const c = await prepared('email', 'busy@example.com');
    await assert.rejects(h.c.notifications.deliver(c.id, { channel: 'email', target: { to: 'busy@example.com' } }), RetryableDeliveryError);
    smtp.rejectRecipient.delete('busy@example.com');
    const retried = await h.c.notifications.deliver(c.id, { channel: 'email', target: { to: 'busy@example.com' } });
    assert.equal(retried.status, 'sent');
    assert.equal(retried.attempts, 2);
    assert.equal(smtp.mails.length, before + 1);
  });

  it('a channel that cannot send (no SMTP_URL) fails at once, saying so; a webhook that does not answer in time is retried', async () => {
    const deps: NotificationsDeps = {
      store: h.c.store, repo: notificationsRepo(h.c.store), alerts: h.c.alerts, clock: h.clock, cursors: new CursorCodec('test'), log: pino({ level: 'silent' }), answerRows: answersRepo(), paceClock: h.clock,
      channels: { mailer: null, smtpFrom: 'alerts@alertflow.test', baseUrl: 'http://alertflow.test', userAgent: 'AlertFlow/test', outboundAllow: h.config.outboundAllow, webhookTimeoutMs: 300, smtpTimeoutMs: 1000, providers: h.config.providers },
    };
    const svc = notificationsService(deps);
    const hang = `/hang-${kind}`;
    web.script.set(hang, [0]);
    const slow = await prepared('webhook', `${web.base}${hang}`);
    await assert.rejects(svc.deliver(slow.id, { channel: 'webhook', target: { url: `${web.base}${hang}`, secret: SECRET } }), (err: unknown) => err instanceof RetryableDeliveryError && /abort|timeout/i.test((err as Error).message));

    const unconfigured = await prepared('email', 'ops@example.com');
    const r2 = await svc.deliver(unconfigured.id, { channel: 'email', target: { to: 'ops@example.com' } });
    assert.equal(r2.status, 'failed');
    assert.match(r2.lastError ?? '', /SMTP_URL/);
  });

  it('webhook: a local server receives the JSON body with a valid signature, timestamp and delivery id', async () => {
    const url = `${web.base}/hook-${kind}`;
    const { id, alertId, workflowId } = await prepared('webhook', url);
    const result = await h.c.notifications.deliver(id, { channel: 'webhook', target: { url, secret: SECRET } });
    assert.equal(result.status, 'sent');
    assert.equal(result.responseStatus, 200);
    const hits = hitsTo(web, `/hook-${kind}`);
    assert.equal(hits.length, 1);
    const hit = hits[0]!;
    assert.equal(hit.method, 'POST');
    assert.equal(hit.headers['content-type'], 'application/json');
    assert.match(String(hit.headers['user-agent']), /^AlertFlow\/\d+\.\d+\.\d+$/);
    const expected = `sha256=${createHmac('sha256', SECRET).update(hit.body).digest('hex')}`;
    assert.equal(hit.headers['x-alertflow-signature'], expected, 'HMAC-SHA256 of the exact body bytes');
    assert.equal(hit.headers['x-alertflow-timestamp'], String(Math.floor(h.clock.now() / 1000)));
    assert.equal(hit.headers['x-alertflow-delivery'], id);
    const body = JSON.parse(hit.body.toString('utf8'));
    assert.equal(body.event, 'alert.created', 'the workflow\'s trigger');
    assert.equal(body.deliveryId, id);
    assert.equal(body.sentAt, new Date(h.clock.now()).toISOString());
    const shown = (await h.req('GET', `/api/v1/alerts/${alertId}`)).body.data;
    // The webhook carries the raw payload nowhere, the incident as its own `incident` field, and no history.
    delete shown.payload;
    delete shown.incidentNumber;
    delete shown.history;
    assert.deepEqual(body.alert, shown, 'the alert as the REST API shows it');
    assert.equal(body.incident, null);
    assert.deepEqual(body.workflow, { id: workflowId, name: `Page the DBAs ${n}` });

    await h.c.notifications.deliver(id, { channel: 'webhook', target: { url, secret: SECRET } });
    assert.equal(hitsTo(web, `/hook-${kind}`).length, 1, 'no second request once sent');
  });

  it('a page whose alert is gone before its attempt is recorded failed, saying so, and sends nothing', async () => {
    const url = `${web.base}/gone-${kind}`;
    const { id, alertId } = await prepared('webhook', url);
    await h.c.store.db.deleteFrom('alerts').where('id', '=', alertId).execute();
    const result = await h.c.notifications.deliver(id, { channel: 'webhook', target: { url, secret: SECRET } });
    assert.equal(result.status, 'failed');
    assert.equal(result.lastError, 'The alert no longer exists');
    assert.equal(hitsTo(web, `/gone-${kind}`).length, 0);
  });

  it('webhook: a target that fails twice then succeeds gets exactly one successful delivery logged (3 attempts)', async () => {
    const path = `/flaky-${kind}`;
    web.script.set(path, [500, 503, 200]);
    const url = `${web.base}${path}`;
    const { id, alertId } = await prepared('webhook', url);
    const action: Delivery = { channel: 'webhook', target: { url, secret: SECRET } };
    // The job queue's retries: each RetryableDeliveryError runs the job again.
    await assert.rejects(h.c.notifications.deliver(id, action), (err: unknown) => err instanceof RetryableDeliveryError && /HTTP 500/.test((err as Error).message));
    let entry = (await log(alertId))[0]!;
    assert.equal(entry.status, 'pending');
    assert.equal(entry.attempts, 1);
    assert.equal(entry.responseStatus, 500);
    assert.match(entry.lastError, /^HTTP 500: nope 500/);
    await assert.rejects(h.c.notifications.deliver(id, action), RetryableDeliveryError);
    const done = await h.c.notifications.deliver(id, action);
    assert.equal(done.status, 'sent');
    await h.c.notifications.deliver(id, action);

    const entries = await log(alertId);
    assert.equal(entries.length, 1);
    entry = entries[0]!;
    assert.equal(entry.status, 'sent');
    assert.equal(entry.attempts, 3);
    assert.equal(entry.responseStatus, 200);
    assert.equal(entry.lastError, null);
    const hits = hitsTo(web, path);
    assert.equal(hits.length, 3);
    assert.deepEqual(new Set(hits.map((x) => x.headers['x-alertflow-delivery'])), new Set([id]), 'the same delivery id on every attempt');
  });

  it('webhook: two workers running the same job at once send one request', async () => {
    const path = `/slow-${kind}`;
    web.delay.set(path, 300);
    const url = `${web.base}${path}`;
    const { id } = await prepared('webhook', url);
    const action: Delivery = { channel: 'webhook', target: { url, secret: SECRET } };
    const [a, b] = await Promise.allSettled([h.c.notifications.deliver(id, action), h.c.notifications.deliver(id, action)]);
    const outcomes = [a, b].map((r) => (r.status === 'fulfilled' ? r.value.status : (r.reason as Error).message)).sort();
    assert.deepEqual(outcomes, ['Another attempt of this notification is in progress', 'sent']);
    assert.equal((await h.c.notifications.deliver(id, action)).status, 'sent', 'the retried job finds it sent');
    assert.equal(hitsTo(web, path).length, 1);
  });

  it('webhook: an attempt whose worker died (claimed, nothing recorded) is taken over once its lease has run out', async () => {
    const path = `/orphan-${kind}`;
    const url = `${web.base}${path}`;
    const { id } = await prepared('webhook', url);
    // A worker took the attempt and died before recording anything.
    assert.ok(await notificationsRepo(h.c.store).claim(h.c.store.db, id, 0, h.clock.now(), h.clock.now()));
    const action: Delivery = { channel: 'webhook', target: { url, secret: SECRET } };
    await assert.rejects(h.c.notifications.deliver(id, action), /Another attempt of this notification is in progress/);
    h.clock.advance(h.config.jobs.leaseSeconds * 1000 + 1);
    const r = await h.c.notifications.deliver(id, action);
    assert.equal(r.status, 'sent');
    assert.equal(r.attempts, 2);
    assert.equal(hitsTo(web, path).length, 1);
  });

  it('a page cancelled during its attempt stays cancelled unless the attempt sent it, which it then says; a stale attempt records nothing', async () => {
    const repo = notificationsRepo(h.c.store);
    const db = h.c.store.db;
    const at = h.clock.now();
    const cancel = (id: string) => db.updateTable('notifications').set({ status: 'cancelled', last_error: 'answered' }).where('id', '=', id).execute();
    const status = async (id: string) => (await repo.get(db, id))?.status;

    const failed = await prepared('webhook', `${web.base}/cancelled-failed-${kind}`);
    assert.ok(await repo.claim(db, failed.id, 0, at, at));
    await cancel(failed.id);
    assert.equal(await repo.record(db, failed.id, 1, { status: 'pending', last_error: 'HTTP 503', response_status: 503, sent_at: null }, at), false);
    assert.equal(await status(failed.id), 'cancelled');

    const sent = await prepared('webhook', `${web.base}/cancelled-sent-${kind}`);
    assert.ok(await repo.claim(db, sent.id, 0, at, at));
    await cancel(sent.id);
    assert.equal(await repo.record(db, sent.id, 1, { status: 'sent', last_error: null, response_status: 200, sent_at: at, provider_ref: 'ref-1' }, at), true);
    const row = await repo.get(db, sent.id);
    assert.deepEqual([row?.status, row?.provider_ref], ['sent', 'ref-1']);

    // An earlier attempt's outcome, arriving after a later attempt took the row, changes nothing (its reference neither).
    assert.equal(await repo.record(db, sent.id, 0, { status: 'failed', last_error: 'late', response_status: null, sent_at: null }, at), false);
    assert.deepEqual([(await repo.get(db, sent.id))?.status, (await repo.get(db, sent.id))?.provider_ref], ['sent', 'ref-1']);
  });

  it('webhook: a 4xx or a redirect is final, no retry; retries stop after MAX_ATTEMPTS', async () => {
    for (const [path, status] of [[`/bad-${kind}`, 400], [`/moved-${kind}`, 302]] as const) {
      web.script.set(path, [status]);
      const url = `${web.base}${path}`;
      const { id } = await prepared('webhook', url);
      const r = await h.c.notifications.deliver(id, { channel: 'webhook', target: { url, secret: SECRET } });
      assert.equal(r.status, 'failed', path);
      assert.equal(r.attempts, 1);
      assert.equal(r.responseStatus, status);
      assert.match(r.lastError ?? '', new RegExp(`^HTTP ${status}`));
      await h.c.notifications.deliver(id, { channel: 'webhook', target: { url, secret: SECRET } });
      assert.equal(hitsTo(web, path).length, 1, 'not retried');
    }

    const path = `/down-${kind}`;
    web.script.set(path, [502]);
    const url = `${web.base}${path}`;
    const { id } = await prepared('webhook', url);
    for (let i = 1; i < MAX_ATTEMPTS; i++) await assert.rejects(h.c.notifications.deliver(id, { channel: 'webhook', target: { url, secret: SECRET } }), RetryableDeliveryError);
    const last = await h.c.notifications.deliver(id, { channel: 'webhook', target: { url, secret: SECRET } });
    assert.equal(last.status, 'failed');
    assert.equal(last.attempts, MAX_ATTEMPTS);
    assert.match(last.lastError ?? '', new RegExp(`^Gave up after ${MAX_ATTEMPTS} attempts: HTTP 502`));
    assert.equal(hitsTo(web, path).length, MAX_ATTEMPTS);
  });

  it('webhook: a network error is retried', async () => {
    const closed = await startHttpSink();
    const url = `${closed.base}/gone`;
    await closed.close();
    const { id } = await prepared('webhook', url);
    await assert.rejects(h.c.notifications.deliver(id, { channel: 'webhook', target: { url, secret: SECRET } }), (err: unknown) => err instanceof RetryableDeliveryError && /ECONNREFUSED/.test((err as Error).message));
    const row = await h.c.store.db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'pending');
    assert.equal(row.attempts, 1);
    assert.equal(row.response_status, null);
  });

  it('webhook: private, loopback and link-local addresses outside the allow-list are refused without a request', async () => {
    for (const url of [`${offList.base}/ssrf`, 'http://10.0.0.1/hook', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:1/x', 'ftp://127.0.0.1/x']) {
      const { id } = await prepared('webhook', url);
      const r = await h.c.notifications.deliver(id, { channel: 'webhook', target: { url, secret: SECRET } });
      assert.equal(r.status, 'failed', url);
      assert.match(r.lastError ?? '', /^The URL (is refused: .* is a (loopback|private|linkLocal) address|must use http or https)$/, url);
    }
    const one = await prepared('webhook', `${offList.base}/ssrf`);
    const r = await h.c.notifications.deliver(one.id, { channel: 'webhook', target: { url: `${offList.base}/ssrf`, secret: SECRET } });
    assert.equal(r.lastError, 'The URL is refused: 127.0.0.2 is a loopback address');
    assert.equal(r.responseStatus, null);
    assert.equal(offList.hits.length, 0, 'no request reached 127.0.0.2');
  });

  it('prepare: once per alert, workflow and action, even when called again (or in a transaction)', async () => {
    const ids = await setup();
    const one = await h.c.notifications.prepare(h.c.store.db, input(h.org, ids, 'webhook', `${web.base}/x`));
    const two = await h.c.store.db.transaction().execute((trx) => h.c.notifications.prepare(trx, input(h.org, ids, 'webhook', `${web.base}/x`)));
    assert.deepEqual(two, { id: one.id, created: false });
    const other = await h.c.notifications.prepare(h.c.store.db, input(h.org, ids, 'email', 'ops@example.com', 1));
    assert.equal(other.created, true);
    const rows = await h.c.store.db.selectFrom('notifications').selectAll().where('alert_id', '=', ids.alertId).execute();
    assert.equal(rows.length, 2);
    assert.deepEqual(rows.map((r) => r.idempotency_key).sort(), [`${ids.alertId}:${ids.workflowId}:0`, `${ids.alertId}:${ids.workflowId}:1`]);

    // A prepare rolled back with its transaction leaves nothing behind.
    const rolled = await setup();
    await assert.rejects(h.c.store.db.transaction().execute(async (trx) => {
      await h.c.notifications.prepare(trx, input(h.org, rolled, 'webhook', `${web.base}/x`));
      throw new Error('rollback');
    }), /rollback/);
    assert.equal((await log(rolled.alertId)).length, 0);
  });

  it('GET /alerts/{id}/notifications: pages newest first; 404 for another organization\'s alert; forIncident', async () => {
    const ids = await setup();
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      // As every caller passes it: the target as its channel describes it.
      const target = CHANNELS.webhook.describe({ url: 'https://user:pw@hooks.example.com/x' });
      made.push((await h.c.notifications.prepare(h.c.store.db, { ...input(h.org, ids, 'webhook', target, i), incidentId: 'inc_test' })).id);
      h.clock.advance(1000);
    }
    const first = await h.req('GET', `/api/v1/alerts/${ids.alertId}/notifications?limit=2`);
    assert.equal(first.status, 200, first.raw);
    assert.deepEqual(first.body.data.map((x: { id: string }) => x.id), [made[2], made[1]]);
    assert.equal(first.body.meta.total, 3);
    assert.equal(first.body.data[0].target, 'https://hooks.example.com/x', 'credentials never shown');
    const next = await h.req('GET', `/api/v1/alerts/${ids.alertId}/notifications?limit=2&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`);
    assert.deepEqual(next.body.data.map((x: { id: string }) => x.id), [made[0]]);
    assert.equal(next.body.meta.hasMore, false);

    const other = await h.newOrg('Other');
    const foreign = await h.req('GET', `/api/v1/alerts/${ids.alertId}/notifications`, { key: other.key });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'NOT_FOUND');
    assert.equal((await h.req('GET', '/api/v1/alerts/alt_nope/notifications')).status, 404);

    const timeline = await forIncident(h.c.store.db, h.org.id, 'inc_test');
    assert.deepEqual(timeline.map((r) => r.id), made, 'oldest first');
    assert.equal((await forIncident(h.c.store.db, other.id, 'inc_test')).length, 0);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';
import { eachStore } from '../support/stores.ts';

/**
 * PagerDuty's Events API v2 at AlertFlow. The examples are PagerDuty's own, copied from its published
 * documents with only the routing key replaced by the integration's:
 * - PagerDuty/api-schema `reference/events-v2/openapiv3.json`: the `/enqueue` request example and the
 *   Error response example;
 * - PagerDuty/developer-docs `docs/events-API-v2/02-Trigger-Events.md`: the Trigger, Acknowledge and Resolve
 *   example request payloads.
 */
const OPENAPI_EVENT = {
  payload: {
    summary: 'DISK at 99% on machine prod-datapipe03.example.com',
    timestamp: '2015-07-17T08:42:58.315+0000',
    severity: 'critical',
    source: 'prod-datapipe03.example.com',
    component: 'mysql',
    group: 'prod-datapipe',
    class: 'disk',
    custom_details: { 'free space': '1%', 'ping time': '1500ms', 'load avg': 0.75 },
  },
  routing_key: 'e93facc04764012d7bfb002500d5d1a6',
  dedup_key: 'srv01/mysql',
  event_action: 'trigger',
  client: 'Sample Monitoring Service',
  client_url: 'https://monitoring.service.com',
  links: [{ href: 'http://pagerduty.example.com', text: 'An example link.' }],
  images: [{
    src: 'https://chart.googleapis.com/chart?chs=600x400&chd=t:6,2,9,5,2,5,7,4,8,2,1&cht=lc&chds=a&chxt=y&chm=D,0033FF,0,0,5,1',
    href: 'https://google.com',
    alt: 'An example link with an image',
  }],
};
const DOCS_TRIGGER = {
  payload: {
    summary: 'Example alert on host1.example.com',
    timestamp: '2015-07-17T08:42:58.315+0000',
    source: 'monitoringtool:cloudvendor:central-region-dc-01:852559987:cluster/api-stats-prod-003',
    severity: 'info',
    component: 'postgres',
    group: 'prod-datapipe',
    class: 'deploy',
    custom_details: { 'ping time': '1500ms', 'load avg': 0.75 },
  },
  routing_key: 'samplekeyhere',
  dedup_key: 'samplekeyhere',
  images: [{ src: 'https://www.pagerduty.com/wp-content/uploads/2016/05/pagerduty-logo-green.png', href: 'https://example.com/', alt: 'Example text' }],
  links: [{ href: 'https://example.com/', text: 'Link text' }],
  event_action: 'trigger',
  client: 'Sample Monitoring Service',
  client_url: 'https://monitoring.example.com',
};
const DOCS_ACKNOWLEDGE = { routing_key: 'routingkeyhere', dedup_key: 'dedupkeyhere', event_action: 'acknowledge' };
const DOCS_RESOLVE = { routing_key: 'routingkeyhere', dedup_key: 'dedupkeyhere', event_action: 'resolve' };

const PATHS = ['/v2/enqueue', '/api/inbound/pagerduty/v2/enqueue'] as const;

eachStore('PagerDuty Events API v2', { together: true }, (kind) => {
  let h: Harness;
  // A small per-integration budget, so that 429 is reachable; every test uses integrations of its own.
  before(async () => { h = await startHarness(kind, { RATE_LIMIT_INGEST_PER_MINUTE: '12' }); });
  after(() => h.close());

  async function fresh(org?: Org) {
    const o = org ?? await h.newOrg();
    const d = (await h.req('POST', '/api/v1/integrations', { key: o.key, body: { name: 'pd' } })).body.data;
    const send = (event: Record<string, unknown>, path: string = PATHS[0]) => h.req('POST', path, { key: null, body: { ...event, routing_key: d.routingKey } });
    const alerts = async () => (await h.req('GET', `/api/v1/alerts?integrationId=${d.id}`, { key: o.key })).body.data as Array<Record<string, any>>;
    const alert = async (id: string) => (await h.req('GET', `/api/v1/alerts/${id}`, { key: o.key })).body.data as Record<string, any>;
    const rejections = async () => (await h.req('GET', `/api/v1/integrations/${d.id}/rejections`, { key: o.key })).body.data as Array<Record<string, any>>;
    return { org: o, d, send, alerts, alert, rejections };
  }

  it('the api-schema example, at both paths: 202 in PagerDuty\'s shape once stored, every field where a person looks', async () => {
    for (const path of PATHS) {
      const { d, send, alerts, alert } = await fresh();
      const r = await send(OPENAPI_EVENT, path);
      assert.equal(r.status, 202, r.raw);
      assert.deepEqual(r.body, { status: 'success', message: 'Event processed', dedup_key: 'srv01/mysql' });
      const [listed] = await alerts();
      assert.ok(listed, 'stored before the answer');
      const a = await alert(listed.id);
      assert.equal(a.title, 'DISK at 99% on machine prod-datapipe03.example.com');
      assert.equal(a.severity, 'critical');
      assert.equal(a.status, 'firing');
      assert.equal(a.source, 'prod-datapipe03.example.com');
      assert.equal(a.fingerprint, 'srv01/mysql');
      assert.equal(a.integrationId, d.id);
      assert.deepEqual(a.labels, { component: 'mysql', group: 'prod-datapipe', class: 'disk', 'free space': '1%', 'ping time': '1500ms', 'load avg': '0.75' });
      assert.deepEqual(a.annotations, {
        client: 'Sample Monitoring Service',
        client_url: 'https://monitoring.service.com',
        timestamp: '2015-07-17T08:42:58.315+0000',
        'An example link.': 'http://pagerduty.example.com',
        'An example link with an image': OPENAPI_EVENT.images[0]?.src,
      });
      assert.equal(a.description, 'free space: 1%\nping time: 1500ms\nload avg: 0.75');
      assert.deepEqual(a.payload, { ...OPENAPI_EVENT, routing_key: `…${d.routingKey.slice(-4)}` }, 'the raw event is kept, its routing key masked');
    }
  });

  it('the developer-docs examples: trigger, then acknowledge and resolve by dedup_key; before the trigger they are accepted and ignored', async () => {
    const { d, send, alerts, alert } = await fresh();
    const early = await send(DOCS_ACKNOWLEDGE);
    assert.equal(early.status, 202, early.raw);
    assert.deepEqual(early.body, { status: 'success', message: 'Event processed', dedup_key: 'dedupkeyhere' });
    assert.equal((await send(DOCS_RESOLVE)).status, 202);
    assert.deepEqual(await alerts(), [], 'acknowledge and resolve create nothing');

    const trigger = await send({ ...DOCS_TRIGGER, dedup_key: 'dedupkeyhere' });
    assert.equal(trigger.status, 202, trigger.raw);
    const [created] = await alerts();
    assert.equal(created?.severity, 'info');
    assert.deepEqual(created?.labels, { component: 'postgres', group: 'prod-datapipe', class: 'deploy', 'ping time': '1500ms', 'load avg': '0.75' });
    assert.equal(created?.annotations['Link text'], 'https://example.com/');
    assert.equal(created?.annotations['Example text'], DOCS_TRIGGER.images[0]?.src);

    assert.equal((await send(DOCS_ACKNOWLEDGE)).status, 202);
    const acked = await alert(created?.id);
    assert.equal(acked.status, 'acknowledged');
    assert.deepEqual(acked.acknowledgedBy, { type: 'integration', id: d.id });
    const again = await send({ ...DOCS_TRIGGER, dedup_key: 'dedupkeyhere' });
    assert.equal(again.status, 202);
    const repeated = await alert(created?.id);
    assert.equal(repeated.status, 'acknowledged', 'a trigger while acknowledged counts, and keeps it acknowledged');
    assert.equal(repeated.occurrences, 2);

    assert.equal((await send(DOCS_RESOLVE)).status, 202);
    const resolved = await alert(created?.id);
    assert.equal(resolved.status, 'resolved');
    assert.deepEqual(resolved.resolvedBy, { type: 'integration', id: d.id });
    assert.equal((await send({ ...DOCS_TRIGGER, dedup_key: 'dedupkeyhere' })).status, 202);
    assert.equal((await alerts()).length, 2, 'once resolved, the same dedup_key opens a new alert');
  });

  it('a trigger without dedup_key gets one, returned in the answer; two such triggers are two alerts', async () => {
    const { send, alerts } = await fresh();
    const { dedup_key: _given, ...event } = DOCS_TRIGGER;
    const a = await send(event);
    const b = await send(event);
    assert.equal(a.status, 202, a.raw);
    assert.match(a.body.dedup_key, /^[0-9a-f-]{36}$/);
    assert.notEqual(a.body.dedup_key, b.body.dedup_key);
    const fingerprints = (await alerts()).map((x) => x.fingerprint).sort();
    assert.deepEqual(fingerprints, [a.body.dedup_key, b.body.dedup_key].sort());
  });

  it('acknowledge and resolve act only on the alert this integration sent', async () => {
    const org = await h.newOrg();
    const mine = await fresh(org);
    const theirs = await fresh(org);
    await theirs.send({ ...DOCS_TRIGGER, dedup_key: 'shared-key' });
    const r = await mine.send({ ...DOCS_RESOLVE, dedup_key: 'shared-key' });
    assert.equal(r.status, 202);
    assert.equal((await theirs.alerts())[0]?.status, 'firing', 'another integration\'s alert is left alone');
  });

  it('a bad event is 400 in PagerDuty\'s shape naming the field, stores nothing, and lands in the rejection log', async () => {
    const { d, org, send, alerts, rejections } = await fresh();
    const missing = await send({ ...DOCS_TRIGGER, payload: { ...DOCS_TRIGGER.payload, summary: undefined, severity: 'fatal' } });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, {
      status: 'invalid event', message: 'Event object is invalid',
      errors: ['payload.summary is required', 'payload.severity must be one of critical, error, warning, info'],
    });
    const long = await send({ ...DOCS_TRIGGER, dedup_key: 'k'.repeat(256) });
    assert.deepEqual(long.body.errors, ['dedup_key must be at most 255 characters']);
    const noKey = await send({ ...DOCS_RESOLVE, dedup_key: undefined });
    assert.deepEqual(noKey.body.errors, ['dedup_key is required to resolve']);
    const action = await send({ ...DOCS_TRIGGER, event_action: 'snooze' });
    assert.deepEqual(action.body.errors, ['event_action must be one of trigger, acknowledge, resolve']);
    const unparseable = await h.req('POST', PATHS[0], { key: null, rawBody: '{"routing_key":', headers: { 'content-type': 'application/json' } });
    assert.equal(unparseable.status, 400);
    assert.deepEqual(unparseable.body, { status: 'Unrecognized object', message: 'Event object format is unrecognized', errors: ['JSON parse error'] });
    assert.deepEqual(await alerts(), []);

    const log = await rejections();
    assert.equal(log.length, 4, 'the four refused events of this integration (the unparseable one names none)');
    assert.equal(log[3]?.code, 'VALIDATION_ERROR');
    assert.deepEqual(log[3]?.details, [{ path: '/payload/summary', message: 'is required' }, { path: '/payload/severity', message: 'must be one of critical, error, warning, info' }]);
    assert.ok(log.every((x) => !String(x.payload).includes(d.routingKey)), 'the routing key is not kept in the log');
    await eventually('the rejected counter', async () => {
      const n = (await h.req('GET', `/api/v1/integrations/${d.id}`, { key: org.key })).body.data.rejectedCount;
      return n === 4 ? n : undefined;
    }, 5000);
  });

  it('an unknown, malformed, disabled, deleted or rotated-out routing key is never a 2xx', async () => {
    const { d, org, send, alerts } = await fresh();
    const post = (routing_key: unknown) => h.req('POST', PATHS[1], { key: null, body: { ...DOCS_TRIGGER, routing_key } });
    for (const key of ['0123456789abcdef0123456789abcdef', d.routingKey.toUpperCase(), 'samplekeyhere', `…${d.routingKey.slice(-4)}`]) {
      const r = await post(key);
      assert.equal(r.status, 401, key);
      assert.equal(r.body.status, 'unauthorized');
    }
    assert.equal((await post(undefined)).status, 400, 'no routing key: an invalid event');
    assert.deepEqual((await post(42)).body.errors, ['routing_key is required']);

    assert.equal((await h.req('PUT', `/api/v1/integrations/${d.id}`, { key: org.key, body: { enabled: false } })).status, 200);
    assert.equal((await send(DOCS_TRIGGER)).status, 401, 'disabled');
    assert.equal((await h.req('PUT', `/api/v1/integrations/${d.id}`, { key: org.key, body: { enabled: true } })).status, 200);
    const rotated = (await h.req('POST', `/api/v1/integrations/${d.id}/rotate-token`, { key: org.key })).body.data;
    assert.equal((await send(DOCS_TRIGGER)).status, 401, 'the old key, once rotated');
    assert.equal((await post(rotated.routingKey)).status, 202, 'the new key');
    assert.equal((await h.req('DELETE', `/api/v1/integrations/${d.id}`, { key: org.key })).status, 204);
    assert.equal((await post(rotated.routingKey)).status, 401, 'deleted');
    assert.equal((await alerts()).length, 1);
  });

  it('over the integration\'s rate limit: 429 with Retry-After; over 512 KB: 413', async () => {
    const { send } = await fresh();
    const statuses: number[] = [];
    for (let i = 0; i < 13; i++) statuses.push((await send({ ...DOCS_TRIGGER, dedup_key: `k${i}` })).status);
    assert.deepEqual(statuses, [...Array(12).fill(202), 429]);
    const limited = await send(DOCS_TRIGGER);
    assert.equal(limited.body.status, 'throttled');
    assert.ok(Number(limited.headers['retry-after']) >= 1);

    const big = { ...DOCS_TRIGGER, payload: { ...DOCS_TRIGGER.payload, custom_details: { blob: 'x'.repeat(600 * 1024) } } };
    const r = await send(big);
    assert.equal(r.status, 413);
    assert.deepEqual(r.body, { status: 'payload too large', message: 'The event is larger than 512 KB' });
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

/**
 * Opsgenie's Alert API at AlertFlow. Paths, parameters and bodies follow opsgenie/opsgenie-oas
 * (`paths/alert.yaml`, `definitions/alert.yaml`, `definitions/common.yaml`). The examples are those of
 * Opsgenie's Alert API documentation (docs.opsgenie.com/docs/alert-api): the Create Alert and Close Alert
 * sample requests (as reproduced, with that page cited, in public client test suites) and the Get Request
 * Status sample responses (read on the page itself).
 */
const DOCS_CREATE = {
  message: 'An example alert message',
  alias: 'Life is too short for no alias',
  description: 'Every alert needs a description',
  responders: [
    { id: '4513b7ea-3b91-438f-b7e4-e3e54af9147c', type: 'team' },
    { name: 'NOC', type: 'team' },
    { id: 'bb4d9938-c3c2-455d-aaab-727aa701c0d8', type: 'user' },
    { username: 'trinity@opsgenie.com', type: 'user' },
    { id: 'aee8a0de-c80f-4515-a232-501c0bc9d715', type: 'escalation' },
    { name: 'Nightwatch Escalation', type: 'escalation' },
    { id: '80564037-1984-4f38-b98e-8a1f662df552', type: 'schedule' },
    { name: 'First Responders Schedule', type: 'schedule' },
  ],
  visibleTo: [
    { id: '4513b7ea-3b91-438f-b7e4-e3e54af9147c', type: 'team' },
    { name: 'rocket_team', type: 'team' },
    { id: 'bb4d9938-c3c2-455d-aaab-727aa701c0d8', type: 'user' },
    { username: 'trinity@opsgenie.com', type: 'user' },
  ],
  actions: ['Restart', 'AnExampleAction'],
  tags: ['OverwriteQuietHours', 'Critical'],
  details: { key1: 'value1', key2: 'value2' },
  entity: 'An example entity',
  priority: 'P1',
};
const DOCS_CLOSE = { user: 'Monitoring Script', source: 'AWS Lambda', note: 'Action executed via Alert API' };
/** The keys of the Get Request Status sample responses' `data`. */
const DOCS_STATUS_KEYS = ['success', 'action', 'processedAt', 'integrationId', 'isSuccess', 'status', 'alertId', 'alias'];

const PREFIXES = ['', '/api/inbound/opsgenie'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

eachStore('Opsgenie Alert API', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind, { RATE_LIMIT_INGEST_PER_MINUTE: '20' }); });
  after(() => h.close());

  async function fresh(org?: Org, prefix: string = PREFIXES[0]) {
    const o = org ?? await h.newOrg();
    const d = (await h.req('POST', '/api/v1/integrations', { key: o.key, body: { name: 'og' } })).body.data;
    const call = (method: string, path: string, body?: unknown, key: string = d.genieKey) =>
      h.req(method, `${prefix}/v2/alerts${path}`, { key: null, headers: { authorization: `GenieKey ${key}` }, ...(body !== undefined && { body }) });
    const status = async (requestId: string) => {
      const r = await call('GET', `/requests/${requestId}`);
      assert.equal(r.status, 200, r.raw);
      return r.body.data as Record<string, any>;
    };
    const alerts = async () => (await h.req('GET', `/api/v1/alerts?integrationId=${d.id}`, { key: o.key })).body.data as Array<Record<string, any>>;
    const alert = async (id: string) => (await h.req('GET', `/api/v1/alerts/${id}`, { key: o.key })).body.data as Record<string, any>;
    return { org: o, d, call, status, alerts, alert };
  }

  it('the documentation\'s create example, at both paths: 202 once stored, its request status, every field kept', async () => {
    for (const prefix of PREFIXES) {
      const { d, call, status, alerts, alert } = await fresh(undefined, prefix);
      const r = await call('POST', '', DOCS_CREATE);
      assert.equal(r.status, 202, r.raw);
      assert.deepEqual(Object.keys(r.body), ['result', 'took', 'requestId']);
      assert.equal(r.body.result, 'Request will be processed');
      assert.equal(typeof r.body.took, 'number');
      assert.match(r.body.requestId, UUID);
      const [listed] = await alerts();
      assert.ok(listed, 'stored before the answer');
      const a = await alert(listed.id);
      assert.equal(a.title, 'An example alert message');
      assert.equal(a.severity, 'critical');
      assert.equal(a.description, 'Every alert needs a description');
      assert.equal(a.fingerprint, 'Life is too short for no alias');
      assert.equal(a.source, '127.0.0.1', 'no source: the request\'s address, as Opsgenie does');
      assert.deepEqual(a.labels, { key1: 'value1', key2: 'value2', entity: 'An example entity', tags: 'OverwriteQuietHours,Critical' });
      assert.deepEqual(a.annotations, {
        responders: 'team:4513b7ea-3b91-438f-b7e4-e3e54af9147c, team:NOC, user:bb4d9938-c3c2-455d-aaab-727aa701c0d8, user:trinity@opsgenie.com, escalation:aee8a0de-c80f-4515-a232-501c0bc9d715, escalation:Nightwatch Escalation, schedule:80564037-1984-4f38-b98e-8a1f662df552, schedule:First Responders Schedule',
        visibleTo: 'team:4513b7ea-3b91-438f-b7e4-e3e54af9147c, team:rocket_team, user:bb4d9938-c3c2-455d-aaab-727aa701c0d8, user:trinity@opsgenie.com',
        actions: 'Restart, AnExampleAction',
      });
      assert.deepEqual(a.payload, DOCS_CREATE, 'the request is kept as sent');
      const s = await status(r.body.requestId);
      assert.deepEqual(Object.keys(s).sort(), [...DOCS_STATUS_KEYS].sort(), 'the documentation\'s request status fields');
      assert.deepEqual({ ...s, processedAt: undefined }, {
        success: true, action: 'Create', processedAt: undefined, integrationId: d.id, isSuccess: true,
        status: 'Created alert', alertId: a.id, alias: 'Life is too short for no alias',
      });
      assert.equal(s.processedAt, new Date(h.clock.now()).toISOString());
    }
  });

  it('the same alias again counts an occurrence; key:value tags become labels; priorities map to severities', async () => {
    const { call, status, alerts } = await fresh();
    await call('POST', '', { message: 'CPU high', alias: 'cpu-db1', tags: ['env:prod', 'db'], priority: 'P4', source: 'zabbix' });
    const again = await call('POST', '', { message: 'CPU high', alias: 'cpu-db1', priority: 'P4' });
    assert.equal((await status(again.body.requestId)).status, 'Alert already exists; its count was increased');
    const [a] = await alerts();
    assert.equal(a?.occurrences, 2);
    assert.equal(a?.severity, 'low');
    assert.equal(a?.source, 'zabbix');
    assert.deepEqual(a?.labels, { env: 'prod', tags: 'env:prod,db' });
    for (const [priority, severity] of [['P2', 'high'], ['P3', 'medium'], ['P5', 'info'], [undefined, 'medium']]) {
      const r = await call('POST', '', { message: `priority ${priority}`, priority });
      const s = await status(r.body.requestId);
      assert.match(s.alias, UUID, 'no alias: a new one, so each create is an alert of its own');
      assert.equal((await alerts()).find((x) => x.id === s.alertId)?.severity, severity);
    }
  });

  it('close and acknowledge by alias or id, with the documentation\'s close body; none to act on is a failed request status', async () => {
    const { d, call, status, alert } = await fresh();
    const created = await status((await call('POST', '', DOCS_CREATE)).body.requestId);
    const ack = await call('POST', `/${encodeURIComponent(DOCS_CREATE.alias)}/acknowledge?identifierType=alias`, DOCS_CLOSE);
    assert.equal(ack.status, 202, ack.raw);
    assert.equal((await status(ack.body.requestId)).status, 'Acknowledged alert');
    assert.equal((await alert(created.alertId)).status, 'acknowledged');
    const close = await call('POST', `/${created.alertId}/close`, DOCS_CLOSE);
    assert.equal(close.status, 202, close.raw);
    const closed = await alert(created.alertId);
    assert.equal(closed.status, 'resolved');
    assert.deepEqual(closed.resolvedBy, { type: 'integration', id: d.id });
    assert.deepEqual({ ...(await status(close.body.requestId)), processedAt: undefined }, {
      success: true, action: 'Close', processedAt: undefined, integrationId: d.id, isSuccess: true, status: 'Closed alert', alertId: created.alertId, alias: DOCS_CREATE.alias,
    });

    const missing = await call('POST', '/no-such-alias/close?identifierType=alias', DOCS_CLOSE);
    assert.equal(missing.status, 202, 'as Opsgenie: accepted, and the request status tells');
    assert.deepEqual({ ...(await status(missing.body.requestId)), processedAt: undefined }, {
      success: false, action: 'Close', processedAt: undefined, integrationId: d.id, isSuccess: false, status: 'There is no open alert with this alias', alertId: '', alias: '',
    });
    const late = await call('POST', `/${created.alertId}/acknowledge?identifierType=id`);
    assert.equal((await status(late.body.requestId)).status, 'Alert does not exist, or is already closed');

    const long = `deploy/${'x'.repeat(500)}`;
    const made = await status((await call('POST', '', { message: 'long alias', alias: long })).body.requestId);
    const closeLong = await call('POST', `/${encodeURIComponent(long)}/close?identifierType=alias`);
    assert.equal((await status(closeLong.body.requestId)).status, 'Closed alert', 'a 507-character alias with a slash in it');
    assert.equal((await alert(made.alertId)).status, 'resolved');
    assert.equal((await call('POST', `/${created.alertId}/snooze`, {})).status, 404, 'an action not offered');
  });

  it('acts only on alerts this integration sent, and tells only it its requests', async () => {
    const org = await h.newOrg();
    const mine = await fresh(org);
    const theirs = await fresh(org);
    const sent = await theirs.status((await theirs.call('POST', '', { message: 'theirs', alias: 'shared' })).body.requestId);
    const byAlias = await mine.call('POST', '/shared/close?identifierType=alias');
    const byId = await mine.call('POST', `/${sent.alertId}/close`);
    assert.equal((await mine.status(byAlias.body.requestId)).isSuccess, false);
    assert.equal((await mine.status(byId.body.requestId)).isSuccess, false);
    assert.equal((await theirs.alert(sent.alertId)).status, 'firing');
    const foreign = await mine.call('GET', `/requests/${byId.body.requestId}`, undefined, theirs.d.genieKey);
    assert.equal(foreign.status, 404);
    assert.deepEqual(Object.keys(foreign.body), ['message', 'took', 'requestId']);
  });

  it('update message and description by alias, as Alertmanager\'s update_alerts does; an empty description clears it', async () => {
    const { call, status, alert } = await fresh();
    const created = await status((await call('POST', '', DOCS_CREATE)).body.requestId);
    const alias = encodeURIComponent(DOCS_CREATE.alias);
    const m = await call('PUT', `/${alias}/message?identifierType=alias`, { message: 'A new message' });
    assert.equal(m.status, 202, m.raw);
    assert.equal((await status(m.body.requestId)).action, 'UpdateMessage');
    assert.equal((await call('PUT', `/${alias}/description?identifierType=alias`, { description: 'A new description' })).status, 202);
    let a = await alert(created.alertId);
    assert.equal(a.title, 'A new message');
    assert.equal(a.description, 'A new description');
    assert.equal((await call('PUT', `/${alias}/description?identifierType=alias`, {})).status, 202);
    a = await alert(created.alertId);
    assert.equal(a.description, null);
  });

  it('errors in Opsgenie\'s shape: 401 without a valid GenieKey, 400 bad JSON, 422 broken rules naming the field, 404 unknown request, 429 over the limit', async () => {
    const { d, org, call, alerts } = await fresh();
    for (const authorization of [undefined, `Bearer ${d.genieKey}`, `GenieKey ${d.genieKey.toUpperCase()}`, 'GenieKey eb243592-faa2-4ba2-a551q-1afdf565c889', `GenieKey ${d.routingKey}`]) {
      const r = await h.req('POST', '/v2/alerts', { key: null, body: { message: 'x' }, headers: authorization ? { authorization } : {} });
      assert.equal(r.status, 401, String(authorization));
      assert.deepEqual(Object.keys(r.body), ['message', 'took', 'requestId']);
    }
    const json = await h.req('POST', '/v2/alerts', { key: null, rawBody: '{"message":', headers: { authorization: `GenieKey ${d.genieKey}`, 'content-type': 'application/json' } });
    assert.equal(json.status, 400);
    const long = await call('POST', '', { message: 'm'.repeat(131) });
    assert.equal(long.status, 422);
    assert.equal(long.body.message, 'message must be at most 130 characters');
    assert.equal((await call('POST', '', { message: '🔥'.repeat(130) })).status, 202, '130 characters as Opsgenie counts them (Alertmanager truncates so)');
    assert.equal((await call('POST', '', { message: 'x', priority: 'P9' })).body.message, 'priority must be one of P1, P2, P3, P4, P5');
    assert.equal((await call('POST', '', { message: ' ' })).body.message, 'message must not be blank');
    const tiny = await call('POST', '/1234/close?identifierType=tiny');
    assert.equal(tiny.status, 422);
    assert.match(tiny.body.message, /tiny is not supported/);
    assert.equal((await call('GET', '/requests/513085b8-caf3-4f91-aa23-be5fdefc3570')).status, 404);
    const log = (await h.req('GET', `/api/v1/integrations/${d.id}/rejections`, { key: org.key })).body.data as Array<Record<string, any>>;
    assert.deepEqual(log.map((x) => x.status), [422, 422, 422, 422, 400], 'every refused request of this integration is in its log');
    assert.equal((await alerts()).length, 1);

    const statuses: number[] = [];
    // 20 a minute, 7 of them spent above (the 401s named no integration).
    for (let i = 0; i < 14; i++) statuses.push((await call('POST', '', { message: `m${i}` })).status);
    assert.deepEqual(statuses, [...Array(13).fill(202), 429]);
    const limited = await call('POST', '', { message: 'over' });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.deepEqual(Object.keys(limited.body), ['message', 'took', 'requestId']);
  });

  it('a disabled, rotated-out or deleted integration\'s key is refused', async () => {
    const { d, org, call } = await fresh();
    await h.req('PUT', `/api/v1/integrations/${d.id}`, { key: org.key, body: { enabled: false } });
    assert.equal((await call('POST', '', { message: 'x' })).status, 401);
    await h.req('PUT', `/api/v1/integrations/${d.id}`, { key: org.key, body: { enabled: true } });
    const rotated = (await h.req('POST', `/api/v1/integrations/${d.id}/rotate-token`, { key: org.key })).body.data;
    assert.equal((await call('POST', '', { message: 'x' })).status, 401);
    assert.equal((await call('POST', '', { message: 'x' }, rotated.genieKey)).status, 202);
    await h.req('DELETE', `/api/v1/integrations/${d.id}`, { key: org.key });
    assert.equal((await call('POST', '', { message: 'x' }, rotated.genieKey)).status, 401);
  });
});

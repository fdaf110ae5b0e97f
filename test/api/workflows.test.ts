import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enabledFor, insertRun, readDefinition, runByEvent, updateRun } from '../../src/modules/workflows/workflows-repo.ts';
import { startHarness, type Harness, type Org, type Res } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const SECRET = 'whsec-0123456789-abcdefghij';

/** The paths of a 400's details. */
const paths = (r: Res): string[] => (r.body.details as Array<{ path: string }>).map((d) => d.path);

eachStore('workflows API', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  /** Every response body of the suite, to prove the secret never leaves. */
  const seen: string[] = [];
  const req: Harness['req'] = async (method, url, opts) => {
    const r = await h.req(method, url, opts);
    seen.push(r.raw);
    return r;
  };

  let n = 0;
  const body = (extra: Record<string, unknown> = {}) => {
    n += 1;
    return { name: `Workflow ${n}`, trigger: 'alert.created', actions: [{ type: 'suppress' }], ...extra };
  };
  async function create(org: Org, extra: Record<string, unknown> = {}) {
    const r = await req('POST', '/api/v1/workflows', { key: org.key, body: body(extra) });
    assert.equal(r.status, 201, r.raw);
    return r.body.data as Record<string, any>;
  }
  const get = (org: Org, id: string) => req('GET', `/api/v1/workflows/${id}`, { key: org.key });
  const stored = async (id: string) => readDefinition(h.c.store, await h.c.store.db.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirstOrThrow());

  async function schedule(org: Org, name = 'Primary'): Promise<string> {
    // The schedules API is another module's: the row is inserted as it stores one.
    const id = `sch_test_${Math.random().toString(36).slice(2)}`;
    const now = h.clock.now();
    await h.c.store.db.insertInto('schedules').values({
      id, org_id: org.id, name, description: null, timezone: 'UTC', layers: '[]', overrides: '[]', created_at: now, updated_at: now,
    }).execute();
    return id;
  }
  const audit = async (org: Org, action: string) => (await req('GET', `/api/v1/audit-log?action=${action}`, { key: org.key })).body.data as Array<Record<string, any>>;

  const FULL = (scheduleId: string, userId: string) => ({
    name: 'Page checkout on-call',
    description: 'Prod checkout alerts open an incident and page',
    trigger: 'alert.created',
    conditions: {
      all: [
        { field: 'labels.env', op: 'eq', value: 'prod' },
        { any: [{ field: 'severity', op: 'in', value: ['critical', 'high'] }, { field: 'labels.host', op: 'matches', value: '^db[0-9]+$' }] },
        { not: { field: 'labels.maintenance', op: 'exists' } },
      ],
    },
    actions: [
      { type: 'create_incident', groupBy: ['labels.service'], title: '{{alert.labels.service}}: {{alert.title}}' },
      { type: 'assign', scheduleId },
      { type: 'email', to: ['ops@example.com'], toOnCall: scheduleId, subject: '[{{alert.severity}}] {{incident.title}}' },
      { type: 'assign', userId },
      { type: 'webhook', url: 'https://hooks.example.com/alertflow', secret: SECRET },
      { type: 'set_severity', severity: 'critical' },
      { type: 'add_labels', labels: { team: '{{alert.labels.service}}-team', paged: 'yes' } },
      { type: 'suppress' },
    ],
  });

  it('POST: 201 with the workflow, defaults filled in and the secret masked; GET returns it', async () => {
    const org = await h.newOrg();
    const sch = await schedule(org);
    const r = await req('POST', '/api/v1/workflows', { key: org.key, body: FULL(sch, org.ownerId) });
    assert.equal(r.status, 201, r.raw);
    const d = r.body.data;
    assert.match(d.id, /^wf_/);
    assert.deepEqual(d, {
      id: d.id,
      name: 'Page checkout on-call',
      description: 'Prod checkout alerts open an incident and page',
      enabled: true,
      trigger: 'alert.created',
      conditions: {
        all: [
          { field: 'labels.env', op: 'eq', value: 'prod' },
          { any: [{ field: 'severity', op: 'in', value: ['critical', 'high'] }, { field: 'labels.host', op: 'matches', value: '^db[0-9]+$' }] },
          { not: { field: 'labels.maintenance', op: 'exists', value: true } },
        ],
      },
      actions: [
        { type: 'create_incident', groupBy: ['labels.service'], title: '{{alert.labels.service}}: {{alert.title}}' },
        { type: 'assign', scheduleId: sch, userId: null },
        { type: 'email', to: ['ops@example.com'], toOnCall: sch, subject: '[{{alert.severity}}] {{incident.title}}' },
        { type: 'assign', scheduleId: null, userId: org.ownerId },
        { type: 'webhook', url: 'https://hooks.example.com/alertflow', secret: '********' },
        { type: 'set_severity', severity: 'critical' },
        { type: 'add_labels', labels: { team: '{{alert.labels.service}}-team', paged: 'yes' } },
        { type: 'suppress' },
      ],
      createdAt: iso(h.clock.now()),
      updatedAt: iso(h.clock.now()),
    });
    const one = await get(org, d.id);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data, d);
    const def = await stored(d.id);
    assert.deepEqual(def.actions[4], { type: 'webhook', url: 'https://hooks.example.com/alertflow', secret: SECRET }, 'the runner reads the secret in clear');

    const minimal = await req('POST', '/api/v1/workflows', { key: org.key, body: { name: 'm', trigger: 'alert.resolved', actions: [{ type: 'create_incident' }] } });
    assert.equal(minimal.status, 201, minimal.raw);
    assert.equal(minimal.body.data.conditions, null);
    assert.equal(minimal.body.data.description, null);
    assert.equal(minimal.body.data.enabled, true);
    assert.deepEqual(minimal.body.data.actions, [{ type: 'create_incident', groupBy: [], title: '{{alert.title}}' }]);
    const off = await create(org, { enabled: false, trigger: 'alert.reopened', conditions: null });
    assert.equal(off.enabled, false);
    assert.equal(off.trigger, 'alert.reopened');
  });

  it('GET lists newest first with keyset pages, each workflow once, total on the first page only', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    await create(other);
    const made: Array<Record<string, any>> = [];
    for (let i = 0; i < 5; i++) {
      made.push(await create(org));
      if (i !== 2) h.clock.advance(1000);
    }
    const first = await req('GET', '/api/v1/workflows?limit=2', { key: org.key });
    assert.equal(first.status, 200);
    assert.equal(first.body.meta.total, 5);
    await create(org);
    const walked = [...first.body.data];
    let cursor = first.body.meta.nextCursor as string | null;
    while (cursor) {
      const page = await req('GET', `/api/v1/workflows?limit=2&cursor=${encodeURIComponent(cursor)}`, { key: org.key });
      assert.equal(page.status, 200);
      assert.equal('total' in page.body.meta, false);
      walked.push(...page.body.data);
      cursor = page.body.meta.nextCursor;
    }
    assert.deepEqual(walked.map((w) => w.id).sort(), made.map((w) => w.id).sort());
    const times = walked.map((w) => Date.parse(w.createdAt));
    assert.deepEqual(times, [...times].sort((x, y) => y - x), 'newest first');
    const foreign = await req('GET', `/api/v1/workflows?cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { key: other.key });
    assert.equal(foreign.status, 400, 'a cursor of another organization is refused');
    for (const q of ['limit=0', 'limit=101', 'cursor=garbage']) assert.equal((await req('GET', `/api/v1/workflows?${q}`, { key: org.key })).status, 400, q);
  });

  it('PUT is a partial update; PATCH is a synonym; actions replace the list; conditions null matches every alert', async () => {
    const org = await h.newOrg();
    const d = await create(org, { conditions: { field: 'labels.env', op: 'eq', value: 'prod' }, description: 'x' });
    h.clock.advance(60_000);
    const put = await req('PUT', `/api/v1/workflows/${d.id}`, { key: org.key, body: { name: 'Renamed', trigger: 'alert.acknowledged' } });
    assert.equal(put.status, 200, put.raw);
    assert.deepEqual(put.body.data, { ...d, name: 'Renamed', trigger: 'alert.acknowledged', updatedAt: iso(h.clock.now()) });
    h.clock.advance(60_000);
    const patch = await req('PATCH', `/api/v1/workflows/${d.id}`, {
      key: org.key,
      body: { conditions: null, description: null, enabled: false, actions: [{ type: 'create_incident' }, { type: 'assign', userId: org.ownerId }] },
    });
    assert.equal(patch.status, 200, patch.raw);
    assert.deepEqual(patch.body.data, {
      ...d, name: 'Renamed', trigger: 'alert.acknowledged', conditions: null, description: null, enabled: false,
      actions: [{ type: 'create_incident', groupBy: [], title: '{{alert.title}}' }, { type: 'assign', scheduleId: null, userId: org.ownerId }],
      updatedAt: iso(h.clock.now()),
    });
    assert.deepEqual((await get(org, d.id)).body.data, patch.body.data, 'the update is stored');
    for (const method of ['PUT', 'PATCH']) {
      const empty = await req(method, `/api/v1/workflows/${d.id}`, { key: org.key, body: {} });
      assert.equal(empty.status, 400, `${method} {}`);
    }
  });

  it('the webhook secret is never returned; sending the mask back keeps it, a new one replaces it', async () => {
    const org = await h.newOrg();
    const d = await create(org, { actions: [{ type: 'webhook', url: 'https://a.example/hook', secret: SECRET }] });
    assert.equal(d.actions[0].secret, '********');
    // A client that reads the workflow and sends it back (reordered, with another action) keeps the secret.
    const back = await req('PUT', `/api/v1/workflows/${d.id}`, { key: org.key, body: { actions: [{ type: 'suppress' }, ...d.actions] } });
    assert.equal(back.status, 200, back.raw);
    assert.deepEqual((await stored(d.id)).actions[1], { type: 'webhook', url: 'https://a.example/hook', secret: SECRET });
    const fresh = 'a-completely-new-secret-42';
    assert.equal((await req('PUT', `/api/v1/workflows/${d.id}`, { key: org.key, body: { actions: [{ type: 'webhook', url: 'https://a.example/hook', secret: fresh }] } })).status, 200);
    assert.deepEqual((await stored(d.id)).actions, [{ type: 'webhook', url: 'https://a.example/hook', secret: fresh }]);
    // The mask for another url has no secret to keep: refused, nothing changes.
    const moved = await req('PUT', `/api/v1/workflows/${d.id}`, { key: org.key, body: { actions: [{ type: 'webhook', url: 'https://b.example/hook', secret: '********' }] } });
    assert.equal(moved.status, 400, moved.raw);
    assert.deepEqual(paths(moved), ['/actions/0/secret']);
    const masked = await req('POST', '/api/v1/workflows', { key: org.key, body: body({ actions: [{ type: 'webhook', url: 'https://a.example/hook', secret: '********' }] }) });
    assert.equal(masked.status, 400, 'a new workflow has no secret to keep');
    assert.deepEqual((await stored(d.id)).actions, [{ type: 'webhook', url: 'https://a.example/hook', secret: fresh }]);
    const list = await req('GET', '/api/v1/workflows', { key: org.key });
    assert.ok(!list.raw.includes(fresh));
    for (const raw of seen) assert.ok(!raw.includes(SECRET) && !raw.includes(fresh), 'a response carried the secret');
    const events = [...await audit(org, 'workflow.created'), ...await audit(org, 'workflow.updated')];
    assert.ok(!JSON.stringify(events).includes(SECRET) && !JSON.stringify(events).includes(fresh), 'the audit log carries no secret');
  });

  it('bad conditions and actions are 400 with the path of each problem, and store nothing', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    const theirSchedule = await schedule(other);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ conditions: { all: [{ field: 'labels.env', op: 'eq', value: 'prod' }, { field: 'labels.host', op: 'matches', value: 'db(' }] } }, '/conditions/all/1/value'],
      [{ conditions: { all: [{ field: 'labels.host', op: 'matches', value: '(a)\\1' }] } }, '/conditions/all/0/value'],
      [{ conditions: { any: [{ not: { field: 'hostname', op: 'eq', value: 'x' } }] } }, '/conditions/any/0/not/field'],
      [{ conditions: { all: [{ field: 'title', op: 'like', value: 'x' }] } }, '/conditions/all/0/op'],
      [{ conditions: { field: 'title', op: 'in', value: 'x' } }, '/conditions/value'],
      [{ conditions: { all: [{ any: [{ not: { all: [{ field: 'title', op: 'exists' }] } }] }] } }, '/conditions/all/0/any/0/not'],
      [{ conditions: { all: [{ field: 'title', op: 'exists' }], any: [] } }, '/conditions'],
      [{ conditions: {} }, '/conditions'],
      [{ conditions: { any: Array.from({ length: 26 }, () => ({ all: [{ field: 'title', op: 'exists' }, { field: 'title', op: 'exists' }] })) } }, '/conditions'],
      [{ trigger: 'alert.deleted' }, '/trigger'],
      [{ actions: [] }, '/actions'],
      [{ actions: Array.from({ length: 21 }, () => ({ type: 'suppress' })) }, '/actions'],
      [{ actions: [{ type: 'page_everyone' }] }, '/actions/0/type'],
      [{ actions: [{ url: 'https://x.example' }] }, '/actions/0/type'],
      [{ actions: [{ type: 'suppress' }, { type: 'suppress' }, { type: 'webhook', url: 'ftp://x.example/', secret: SECRET }] }, '/actions/2/url'],
      [{ actions: [{ type: 'webhook', url: `https://x.example/${'a'.repeat(2048)}`, secret: SECRET }] }, '/actions/0/url'],
      [{ actions: [{ type: 'webhook', url: 'https://x.example/', secret: 'short' }] }, '/actions/0/secret'],
      [{ actions: [{ type: 'webhook', url: 'https://x.example/' }] }, '/actions/0/secret'],
      [{ actions: [{ type: 'webhook', url: 'https://x.example/', secret: SECRET, headers: {} }] }, '/actions/0/headers'],
      [{ actions: [{ type: 'assign', userId: org.ownerId }] }, '/actions/0/type'],
      [{ actions: [{ type: 'create_incident' }, { type: 'assign', userId: 'usr_nobody' }] }, '/actions/1/userId'],
      [{ actions: [{ type: 'create_incident' }, { type: 'assign', userId: other.ownerId }] }, '/actions/1/userId'],
      [{ actions: [{ type: 'create_incident' }, { type: 'assign', scheduleId: theirSchedule }] }, '/actions/1/scheduleId'],
      [{ actions: [{ type: 'create_incident' }, { type: 'assign' }] }, '/actions/1'],
      [{ actions: [{ type: 'email', toOnCall: 'sch_nothing' }] }, '/actions/0/toOnCall'],
      [{ actions: [{ type: 'email', to: ['not-an-address'] }] }, '/actions/0/to/0'],
      [{ actions: [{ type: 'email', to: Array.from({ length: 21 }, (_, i) => `u${i}@example.com`) }] }, '/actions/0/to'],
      [{ actions: [{ type: 'email' }] }, '/actions/0'],
      [{ actions: [{ type: 'email', to: ['ops@example.com'], subject: 'Hello {{user.password}}' }] }, '/actions/0/subject'],
      [{ actions: [{ type: 'create_incident', title: '{{alert.secret}}' }] }, '/actions/0/title'],
      [{ actions: [{ type: 'create_incident', groupBy: ['labels.a', 'labels.b', 'labels.c', 'labels.d', 'labels.e', 'labels.f'] }] }, '/actions/0/groupBy'],
      [{ actions: [{ type: 'create_incident', groupBy: ['host'] }] }, '/actions/0/groupBy/0'],
      [{ actions: [{ type: 'set_severity', severity: 'urgent' }] }, '/actions/0/severity'],
      [{ actions: [{ type: 'add_labels', labels: {} }] }, '/actions/0/labels'],
      [{ actions: [{ type: 'add_labels', labels: { team: 7 } }] }, '/actions/0/labels/team'],
      [{ actions: [{ type: 'add_labels', labels: { team: '{{ops.team}}' } }] }, '/actions/0/labels/team'],
    ];
    for (const [extra, path] of cases) {
      const r = await req('POST', '/api/v1/workflows', { key: org.key, body: body(extra) });
      assert.equal(r.status, 400, `${JSON.stringify(extra).slice(0, 120)}: ${r.raw}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.ok(paths(r).includes(path), `${JSON.stringify(extra).slice(0, 120)} wants ${path}: ${JSON.stringify(r.body.details)}`);
    }
    const d = await create(org, { conditions: { field: 'title', op: 'exists' } });
    for (const [extra, path] of cases.filter(([e]) => !('trigger' in e))) {
      const r = await req('PATCH', `/api/v1/workflows/${d.id}`, { key: org.key, body: extra });
      assert.equal(r.status, 400, `PATCH ${JSON.stringify(extra).slice(0, 120)}`);
      assert.ok(paths(r).includes(path), `PATCH wants ${path}: ${JSON.stringify(r.body.details)}`);
    }
    assert.deepEqual((await get(org, d.id)).body.data, d, 'refused updates changed nothing');
    assert.equal((await req('GET', '/api/v1/workflows', { key: org.key })).body.meta.total, 1, 'refused creates stored nothing');
    assert.equal((await audit(org, 'workflow.updated')).length, 0);
  });

  it('names its own schedules and users: an existing schedule is accepted', async () => {
    const org = await h.newOrg();
    const sch = await schedule(org);
    const r = await req('POST', '/api/v1/workflows', { key: org.key, body: body({ actions: [{ type: 'create_incident' }, { type: 'assign', scheduleId: sch }, { type: 'email', toOnCall: sch }] }) });
    assert.equal(r.status, 201, r.raw);
    assert.deepEqual(r.body.data.actions[2], { type: 'email', to: [], toOnCall: sch, subject: '' }, 'no subject: the default one (empty)');
  });

  it("another organization's workflow is 404, like a missing one, on every route, and stays untouched", async () => {
    const org = await h.newOrg();
    const other = await h.newOrg();
    const theirs = await create(other);
    const routes: Array<[string, string, unknown]> = [
      ['GET', '', undefined], ['PUT', '', { name: 'hijacked' }], ['PATCH', '', { enabled: false }], ['DELETE', '', undefined],
      ['POST', '/enable', undefined], ['POST', '/disable', undefined], ['POST', '/test', { alert: { title: 't', severity: 'low' } }], ['GET', '/runs', undefined],
    ];
    for (const [method, suffix, b] of routes) {
      const a = await req(method, `/api/v1/workflows/${theirs.id}${suffix}`, { key: org.key, ...(b !== undefined && { body: b }) });
      const m = await req(method, `/api/v1/workflows/wf_doesnotexist${suffix}`, { key: org.key, ...(b !== undefined && { body: b }) });
      assert.equal(a.status, 404, `${method} ${suffix}`);
      assert.equal(a.body.code, 'NOT_FOUND');
      assert.deepEqual(a.body, m.body, `${method} ${suffix}`);
    }
    assert.deepEqual((await get(other, theirs.id)).body.data, theirs);
    assert.deepEqual((await req('GET', '/api/v1/workflows', { key: org.key })).body.data, []);
  });

  it('needs workflows:read to read and dry-run, workflows:write to change', async () => {
    const org = await h.newOrg();
    const d = await create(org);
    const keyWith = async (scopes: string[]) => (await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'k', scopes } })).body.data.key as string;
    const ro = await keyWith(['workflows:read']);
    const wo = await keyWith(['workflows:write']);
    const reads: Array<[string, string, unknown]> = [
      ['GET', '/api/v1/workflows', undefined], ['GET', `/api/v1/workflows/${d.id}`, undefined], ['GET', `/api/v1/workflows/${d.id}/runs`, undefined],
      ['POST', `/api/v1/workflows/${d.id}/test`, { alert: { title: 't', severity: 'low' } }],
    ];
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/workflows', body()], ['PUT', `/api/v1/workflows/${d.id}`, { name: 'x' }], ['PATCH', `/api/v1/workflows/${d.id}`, { name: 'x' }],
      ['POST', `/api/v1/workflows/${d.id}/enable`, undefined], ['POST', `/api/v1/workflows/${d.id}/disable`, undefined], ['DELETE', `/api/v1/workflows/${d.id}`, undefined],
    ];
    for (const [method, url, b] of reads) {
      assert.equal((await req(method, url, { key: ro, ...(b !== undefined && { body: b }) })).status, 200, `${method} ${url}`);
      const r = await req(method, url, { key: wo, ...(b !== undefined && { body: b }) });
      assert.equal(r.status, 403, `${method} ${url}`);
      assert.match(r.body.error, /workflows:read/);
    }
    for (const [method, url, b] of writes) {
      const r = await req(method, url, { key: ro, ...(b !== undefined && { body: b }) });
      assert.equal(r.status, 403, `${method} ${url}`);
      assert.match(r.body.error, /workflows:write/);
    }
    assert.deepEqual((await get(org, d.id)).body.data, d);
  });

  it('enable and disable: 200 with the workflow; repeating is a no-op; the runner sees only enabled workflows of the trigger', async () => {
    const org = await h.newOrg();
    const a = await create(org);
    h.clock.advance(1000);
    const b = await create(org, { enabled: false });
    h.clock.advance(1000);
    await create(org, { trigger: 'alert.resolved' });
    const rows = async () => (await enabledFor(h.c.store.db, org.id, 'alert.created')).map((r) => r.id);
    assert.deepEqual(await rows(), [a.id]);

    h.clock.advance(1000);
    const on = await req('POST', `/api/v1/workflows/${b.id}/enable`, { key: org.key });
    assert.equal(on.status, 200, on.raw);
    assert.deepEqual(on.body.data, { ...b, enabled: true, updatedAt: iso(h.clock.now()) });
    assert.deepEqual(await rows(), [a.id, b.id], 'oldest first');
    h.clock.advance(1000);
    const again = await req('POST', `/api/v1/workflows/${b.id}/enable`, { key: org.key });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.data, on.body.data, 'a repeat changes nothing');

    const off = await req('POST', `/api/v1/workflows/${a.id}/disable`, { key: org.key });
    assert.equal(off.status, 200);
    assert.equal(off.body.data.enabled, false);
    assert.equal((await req('POST', `/api/v1/workflows/${a.id}/disable`, { key: org.key })).status, 200);
    assert.deepEqual(await rows(), [b.id]);
    assert.deepEqual(await enabledFor(h.c.store.db, (await h.newOrg()).id, 'alert.created'), [], 'per organization');
    assert.equal((await audit(org, 'workflow.enabled')).length, 1);
    assert.equal((await audit(org, 'workflow.disabled')).length, 1);
    // A body, if sent, is ignored.
    assert.equal((await req('POST', `/api/v1/workflows/${a.id}/enable`, { key: org.key, body: {} })).status, 200);
  });

  it('POST /workflows/test: an unsaved definition, checked as saving would, tried on a sample, doing nothing', async () => {
    const org = await h.newOrg();
    const sch = await schedule(org, 'Draft on-call');
    const draft = { conditions: { all: [{ field: 'labels.env', op: 'eq', value: 'prod' }] }, actions: [{ type: 'create_incident', title: '{{alert.labels.env}}: {{alert.title}}' }, { type: 'assign', scheduleId: sch }] };
    const alert = { title: 'Disk full', severity: 'high', labels: { env: 'prod' } };
    const hit = await req('POST', '/api/v1/workflows/test', { key: org.key, body: { ...draft, alert } });
    assert.equal(hit.status, 200, hit.raw);
    assert.deepEqual(hit.body.data, {
      matched: true,
      actions: [
        { index: 0, type: 'create_incident', description: 'create or join this workflow\'s open incident, titled "prod: Disk full"' },
        { index: 1, type: 'assign', description: 'assign the incident to the on-call of schedule "Draft on-call"' },
      ],
    });
    const miss = await req('POST', '/api/v1/workflows/test', { key: org.key, body: { ...draft, alert: { ...alert, labels: { env: 'dev' } } } });
    assert.deepEqual(miss.body.data, { matched: false, actions: [] });
    const always = await req('POST', '/api/v1/workflows/test', { key: org.key, body: { actions: [{ type: 'suppress' }], alert } });
    assert.equal(always.body.data.matched, true, 'without conditions every alert matches');
    const masked = await req('POST', '/api/v1/workflows/test', { key: org.key, body: { actions: [{ type: 'webhook', url: 'https://hooks.example.com/x', secret: '********' }], alert } });
    assert.equal(masked.status, 200, 'a saved workflow\'s masked secret can be tried as it is');

    // Issue 25 row 11: another organization's schedule or member is refused as saving refuses it, with the same 400.
    const them = await h.newOrg();
    const theirs = await schedule(them, 'Their on-call');
    for (const actions of [[{ type: 'create_incident' }, { type: 'assign', scheduleId: theirs }], [{ type: 'create_incident' }, { type: 'assign', userId: them.ownerId }]]) {
      const tried = await req('POST', '/api/v1/workflows/test', { key: org.key, body: { actions, alert } });
      const saved = await req('POST', '/api/v1/workflows', { key: org.key, body: { name: 'Foreign', trigger: 'alert.created', actions } });
      assert.equal(tried.status, 400, tried.raw);
      assert.deepEqual([tried.status, tried.body], [saved.status, saved.body], 'the dry run answers as saving does');
      assert.match(tried.body.details[0].path, /^\/actions\/1\/(scheduleId|userId)$/);
    }

    const bad = await req('POST', '/api/v1/workflows/test', {
      key: org.key,
      body: { conditions: { all: [{ field: 'labels.env', op: 'matches', value: '(' }] }, actions: [{ type: 'assign', userId: org.ownerId }, { type: 'webhook', url: 'ftp://x', secret: 'short' }], alert },
    });
    assert.equal(bad.status, 400, bad.raw);
    for (const path of ['/conditions/all/0/value', '/actions/0', '/actions/1/url', '/actions/1/secret']) {
      assert.ok(paths(bad).some((p) => p === path || p.startsWith(`${path}/`)), `wants ${path}: ${JSON.stringify(bad.body.details)}`);
    }
    for (const body of [{ alert }, { actions: [], alert }, { actions: [{ type: 'suppress' }] }, { actions: [{ type: 'suppress' }], alert, name: 'x' }]) {
      assert.equal((await req('POST', '/api/v1/workflows/test', { key: org.key, body })).status, 400, JSON.stringify(body));
    }
    assert.equal((await req('GET', '/api/v1/workflows', { key: org.key })).body.meta.total, 0, 'nothing was saved');
    assert.equal((await h.c.store.db.selectFrom('alerts').select('id').where('org_id', '=', org.id).execute()).length, 0, 'nor any alert');
  });

  it('POST /test: whether a sample matches and what would run, doing nothing', async () => {
    const org = await h.newOrg();
    const sch = await schedule(org, 'Checkout primary');
    const d = (await req('POST', '/api/v1/workflows', { key: org.key, body: FULL(sch, org.ownerId) })).body.data;
    const before = await get(org, d.id);
    const auditBefore = (await req('GET', '/api/v1/audit-log?limit=100', { key: org.key })).body.data.filter((e: { action: string }) => e.action !== 'api_key.used');

    const hit = await req('POST', `/api/v1/workflows/${d.id}/test`, {
      key: org.key,
      body: { alert: { title: 'Checkout 500s', severity: 'high', source: 'grafana', labels: { env: 'prod', service: 'checkout' }, annotations: { runbook: 'x' } } },
    });
    assert.equal(hit.status, 200, hit.raw);
    assert.equal(hit.body.data.matched, true);
    assert.deepEqual(hit.body.data.actions, [
      { index: 0, type: 'create_incident', description: 'create or join the incident grouped by labels.service=checkout, titled "checkout: Checkout 500s"' },
      { index: 1, type: 'assign', description: 'assign the incident to the on-call of schedule "Checkout primary"' },
      { index: 2, type: 'email', description: 'email ops@example.com and the on-call of schedule "Checkout primary", subject "[high] checkout: Checkout 500s"' },
      { index: 3, type: 'assign', description: 'assign the incident to user Owner <owner@acme.test>' },
      { index: 4, type: 'webhook', description: 'POST the alert as JSON, signed with HMAC-SHA256, to https://hooks.example.com/alertflow' },
      { index: 5, type: 'set_severity', description: 'set the severity to critical (was high)' },
      { index: 6, type: 'add_labels', description: 'add labels team=checkout-team, paged=yes' },
      { index: 7, type: 'suppress', description: 'suppress the alert' },
    ]);
    const misses = [
      { title: 'x', severity: 'high', labels: { env: 'staging' } },
      { title: 'x', severity: 'low', labels: { env: 'prod', host: 'web1' } },
      { title: 'x', severity: 'critical', labels: { env: 'prod', maintenance: 'yes' } },
      { title: 'x', severity: 'critical' },
    ];
    for (const alert of misses) {
      const r = await req('POST', `/api/v1/workflows/${d.id}/test`, { key: org.key, body: { alert } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.data, { matched: false, actions: [] }, JSON.stringify(alert));
    }
    const viaRegex = await req('POST', `/api/v1/workflows/${d.id}/test`, { key: org.key, body: { alert: { title: 'x', severity: 'low', labels: { env: 'prod', host: 'db12' } } } });
    assert.equal(viaRegex.body.data.matched, true);
    // A disabled workflow can be tried too.
    await req('POST', `/api/v1/workflows/${d.id}/disable`, { key: org.key });
    assert.equal((await req('POST', `/api/v1/workflows/${d.id}/test`, { key: org.key, body: { alert: { title: 'x', severity: 'low', labels: { env: 'prod', host: 'db1' } } } })).body.data.matched, true);
    await req('POST', `/api/v1/workflows/${d.id}/enable`, { key: org.key });

    for (const bad of [{}, { alert: { title: 'x' } }, { alert: { title: 'x', severity: 'urgent' } }, { alert: { title: 'x', severity: 'low', labels: { a: 1 } } }, { alert: { title: 'x', severity: 'low' }, extra: 1 }]) {
      const r = await req('POST', `/api/v1/workflows/${d.id}/test`, { key: org.key, body: bad });
      assert.equal(r.status, 400, JSON.stringify(bad));
    }
    assert.deepEqual((await get(org, d.id)).body.data, { ...before.body.data, updatedAt: (await get(org, d.id)).body.data.updatedAt });
    const auditAfter = (await req('GET', '/api/v1/audit-log?limit=100', { key: org.key })).body.data
      .filter((e: { action: string }) => e.action !== 'api_key.used' && e.action !== 'workflow.enabled' && e.action !== 'workflow.disabled');
    assert.equal(auditAfter.length, auditBefore.length, 'the dry run recorded nothing');
    assert.equal((await req('GET', `/api/v1/workflows/${d.id}/runs`, { key: org.key })).body.meta.total, 0, 'nor any run');
    assert.equal((await h.c.store.db.selectFrom('alerts').select('id').where('org_id', '=', org.id).execute()).length, 0, 'nor any alert');
  });

  it('GET /runs lists the runs the runner records, newest first, with keyset pages; insertRun is once per event', async () => {
    const org = await h.newOrg();
    const d = await create(org);
    const other = await create(org);
    const t0 = h.clock.now();
    const run = (i: number, workflowId = d.id) => ({
      id: `wfr_test_${workflowId}_${i}`, org_id: org.id, workflow_id: workflowId, alert_id: `alt_${i}`, event_id: `${i}`, trigger: 'alert.created',
      matched: i % 2, actions: JSON.stringify(i % 2 ? [{ index: 0, type: 'suppress', status: 'queued', detail: null }] : []),
      created_at: t0 + (i === 3 ? 2 : i) * 1000, updated_at: t0 + i * 1000,
    });
    for (let i = 0; i < 5; i++) assert.equal(await insertRun(h.c.store.db, run(i)), true);
    assert.equal(await insertRun(h.c.store.db, { ...run(1), id: 'wfr_retry' }), false, 'a retried job records no second run');
    await insertRun(h.c.store.db, run(9, other.id));
    assert.equal(await updateRun(h.c.store.db, org.id, run(1).id, [{ index: 0, type: 'suppress', status: 'done', detail: 'suppressed', incidentId: null }], t0 + 99_000), true);
    assert.equal(await updateRun(h.c.store.db, (await h.newOrg()).id, run(1).id, [], t0), false, 'another organization cannot touch it');
    assert.equal((await runByEvent(h.c.store.db, org.id, d.id, '1'))?.id, run(1).id);

    const first = await req('GET', `/api/v1/workflows/${d.id}/runs?limit=2`, { key: org.key });
    assert.equal(first.status, 200, first.raw);
    assert.equal(first.body.meta.total, 5);
    const all = [...first.body.data];
    let cursor = first.body.meta.nextCursor as string | null;
    while (cursor) {
      const page = await req('GET', `/api/v1/workflows/${d.id}/runs?limit=2&cursor=${encodeURIComponent(cursor)}`, { key: org.key });
      all.push(...page.body.data);
      cursor = page.body.meta.nextCursor;
    }
    assert.deepEqual(all.map((r) => r.eventId), ['4', '3', '2', '1', '0'], 'newest first; a tie on createdAt is broken by id');
    assert.deepEqual(all.find((r) => r.eventId === '1'), {
      id: run(1).id, alertId: 'alt_1', eventId: '1', trigger: 'alert.created', matched: true,
      actions: [{ index: 0, type: 'suppress', status: 'done', detail: 'suppressed', incidentId: null }], createdAt: iso(t0 + 1000), updatedAt: iso(t0 + 99_000),
    });
    assert.equal(all.find((r) => r.eventId === '0').matched, false);
    assert.deepEqual(all.find((r) => r.eventId === '3').actions, [{ index: 0, type: 'suppress', status: 'queued', detail: null, incidentId: null }],
      'a run recorded before actions carried their incident reads as having none');
    const foreignCursor = await req('GET', `/api/v1/workflows/${other.id}/runs?cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { key: org.key });
    assert.equal(foreignCursor.status, 400, "a cursor of another workflow's runs is refused");

    assert.equal((await req('DELETE', `/api/v1/workflows/${d.id}`, { key: org.key })).status, 204);
    const left = await h.c.store.db.selectFrom('workflow_runs').select('workflow_id').where('org_id', '=', org.id).execute();
    assert.deepEqual(left.map((r) => r.workflow_id), [other.id], 'the deleted workflow\'s runs go with it');
  });

  it('DELETE: 204, then 404 everywhere; audit events for every change', async () => {
    const org = await h.newOrg();
    const keyId = (await h.req('GET', '/api/v1/api-keys', { key: org.key })).body.data[0].id;
    const d = await create(org);
    await req('PUT', `/api/v1/workflows/${d.id}`, { key: org.key, body: { name: 'Audited', conditions: null } });
    await req('POST', `/api/v1/workflows/${d.id}/disable`, { key: org.key });
    await req('POST', `/api/v1/workflows/${d.id}/enable`, { key: org.key });
    const del = await req('DELETE', `/api/v1/workflows/${d.id}`, { key: org.key });
    assert.equal(del.status, 204);
    assert.equal(del.raw, '');
    for (const [method, suffix] of [['GET', ''], ['DELETE', ''], ['POST', '/enable'], ['GET', '/runs']]) {
      assert.equal((await req(method as string, `/api/v1/workflows/${d.id}${suffix}`, { key: org.key })).status, 404, `${method} ${suffix}`);
    }
    for (const action of ['workflow.created', 'workflow.updated', 'workflow.disabled', 'workflow.enabled', 'workflow.deleted']) {
      const events = await audit(org, action);
      assert.equal(events.length, 1, action);
      assert.deepEqual(events[0]?.target, { type: 'workflow', id: d.id });
      assert.deepEqual(events[0]?.actor, { type: 'api_key', id: keyId });
    }
    assert.deepEqual((await audit(org, 'workflow.updated'))[0]?.metadata, { changed: ['name', 'conditions'] });
    assert.equal((await audit(org, 'workflow.deleted'))[0]?.metadata.name, 'Audited');
  });
});

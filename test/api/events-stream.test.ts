import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { addPerson, asPerson, signIn } from '../support/sessions.ts';
import { openSse, type SseEvent, type SseStream } from '../support/sse.ts';
import { eachStore } from '../support/stores.ts';

eachStore('live event stream GET /events', { together: true }, (kind) => {
  let h: Harness;
  let base: string;
  let path: string;
  const open: SseStream[] = [];
  before(async () => {
    h = await startHarness(kind);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const address = h.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1/events`;
    path = (await h.integration()).path;
  });
  after(async () => {
    for (const s of open) s.close();
    await h.close();
  });

  const stream = async (org: Org | null, headers: Record<string, string> = {}, query = ''): Promise<SseStream> => {
    const s = await openSse(`${base}${query}`, { ...(org && { authorization: `Bearer ${org.key}` }), ...headers });
    open.push(s);
    return s;
  };
  let n = 0;
  const fire = (p: string, extra: Record<string, unknown> = {}) => {
    n += 1;
    return h.ingestAlert(p, { title: `Disk full ${n}`, severity: 'critical', fingerprint: `fp-${n}-${Math.random()}`, ...extra });
  };
  const createdOf = (s: SseStream, id: string) => s.next((e) => e.event === 'alert.created' && e.data.id === id);
  const endsWithin = (s: SseStream, ms: number) =>
    Promise.race([s.ended, new Promise((_, reject) => setTimeout(() => reject(new Error(`stream still open after ${ms} ms`)), ms).unref())]);

  it('an ingested alert arrives as alert.created with a numeric id; resolving it sends alert.resolved', async () => {
    const s = await stream(h.org);
    assert.equal(s.status, 200);
    assert.match(s.contentType, /^text\/event-stream/);
    const id = await fire(path);
    const created = await createdOf(s, id);
    assert.deepEqual(created.data, { id, status: 'firing', severity: 'critical', title: `Disk full ${n}` });
    assert.match(created.id ?? '', /^\d+$/);
    await h.ok('POST', `/api/v1/alerts/${id}/resolve`, { body: {} });
    const resolved = await s.next((e) => e.event === 'alert.resolved' && e.data.id === id);
    assert.equal(resolved.data.status, 'resolved');
    assert.ok(Number(resolved.id) > Number(created.id), 'ids increase');
    s.close();
  });

  it("org B's stream never sees org A's events", async () => {
    const orgB = await h.newOrg('Beta');
    const pathB = (await h.integration(orgB)).path;
    const a = await stream(h.org);
    const b = await stream(orgB);
    const fromA = await fire(path);
    await createdOf(a, fromA);
    const fromB = await fire(pathB);
    await createdOf(b, fromB);
    assert.deepEqual(b.events.map((e) => e.data.id), [fromB], 'B saw only its own alert');
    assert.ok(!a.events.some((e) => e.data.id === fromB), 'A did not see B\'s alert');
    a.close();
    b.close();
  });

  it('resuming with Last-Event-ID (header or query) replays exactly the missed events, none twice', async () => {
    const s = await stream(h.org);
    const first = await createdOf(s, await fire(path));
    s.close();
    const missed = [await fire(path), await fire(path), await fire(path)];
    const check = (events: SseEvent[]) => {
      const created = events.filter((e) => e.event === 'alert.created');
      assert.deepEqual(created.slice(0, 3).map((e) => e.data.id), missed);
      assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'no event twice');
      assert.ok(events.every((e) => Number(e.id) > Number(first.id)));
    };
    const byHeader = await stream(h.org, { 'last-event-id': first.id as string });
    await createdOf(byHeader, missed[2] as string);
    const byQuery = await stream(h.org, {}, `?lastEventId=${first.id}`);
    await createdOf(byQuery, missed[2] as string);
    // A live event after the replay arrives once on both.
    const live = await fire(path);
    await createdOf(byHeader, live);
    await createdOf(byQuery, live);
    check(byHeader.events);
    check(byQuery.events);
    byHeader.close();
    byQuery.close();
  });

  it('an id from before the retention gets one reset event, then the stream carries on', async () => {
    const s = await stream(h.org);
    const old = await createdOf(s, await fire(path));
    s.close();
    // Two the client never saw: retention takes the first (it keeps the newest row, whatever its age).
    await fire(path);
    await fire(path);
    h.clock.advance(2 * 3_600_000);
    assert.ok((await h.c.live.prune()) > 0, 'old rows pruned');
    const resumed = await stream(h.org, { 'last-event-id': old.id as string });
    await resumed.next((e) => e.event === 'reset');
    assert.equal(resumed.events[0]?.event, 'reset');
    const fresh = await createdOf(resumed, await fire(path));
    assert.ok(Number(fresh.id) > Number(old.id), 'numbers go on after pruning, never reused');
    resumed.close();
  });

  it('a revoked key ends its stream within 3 s', async () => {
    const key = await h.ok('POST', '/api/v1/api-keys', { body: { name: 'wallboard', scopes: ['alerts:read'] } }, 201);
    const s = await stream({ ...h.org, key: key.data.key });
    await createdOf(s, await fire(path));
    await h.ok('DELETE', `/api/v1/api-keys/${key.data.id}`, {}, 204);
    await endsWithin(s, 3_500);
  });

  it('a session signed out ends its stream within 3 s', async () => {
    await addPerson(h, h.org.id, 'watcher@acme.test', 'correct horse battery staple', 'member');
    const session = await signIn(h, 'watcher@acme.test', 'correct horse battery staple');
    const s = await stream(null, { cookie: session.cookie });
    assert.equal(s.status, 200);
    await createdOf(s, await fire(path));
    assert.equal((await asPerson(h, session, 'POST', '/api/v1/auth/logout', { body: {} })).status, 204);
    await endsWithin(s, 3_500);
  });

  it('no key 401, a key without alerts:read 403, in the error envelope', async () => {
    assert.equal((await h.req('GET', '/api/v1/events', { key: null })).status, 401);
    const key = await h.ok('POST', '/api/v1/api-keys', { body: { name: 'incidents only', scopes: ['incidents:read'] } }, 201);
    const r = await h.req('GET', '/api/v1/events', { key: key.data.key });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'FORBIDDEN');
    assert.equal((await h.req('GET', '/api/v1/events?lastEventId=abc')).status, 400);
  });

  it('over 50 open streams of one organization on one server: 429', async () => {
    const orgC = await h.newOrg('Gamma');
    const streams = await Promise.all(Array.from({ length: 50 }, () => stream(orgC)));
    assert.ok(streams.every((s) => s.status === 200));
    const refused = await fetch(base, { headers: { authorization: `Bearer ${orgC.key}` } });
    assert.equal(refused.status, 429);
    assert.equal(((await refused.json()) as { code: string }).code, 'RATE_LIMITED');
    for (const s of streams) s.close();
  });

  it('shutting the server down ends open streams instead of waiting for them', async () => {
    const s = await stream(h.org);
    await createdOf(s, await fire(path));
    const closing = h.app.close();
    await endsWithin(s, 5_000);
    await closing;
  });
});

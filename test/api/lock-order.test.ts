import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { commitTogether } from '../../src/db/group-commit.ts';
import type { DB } from '../../src/db/schema.ts';
import { notificationsRepo } from '../../src/modules/notifications/notifications-repo.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/**
 * PostgreSQL only: SQLite runs one transaction at a time, so it has no lock order to get wrong. A page's record
 * (notifications-service.ts, `records`) updates the page's row and then, in the same transaction, the incident's
 * analytics row; an answer acknowledging the incident at that moment must take the same rows in the same order
 * (docs/architecture.md, "Lock order"), else PostgreSQL kills one of them as a deadlock: a CI run lost a call's
 * "sent" that way, and the page would have been sent again.
 */
/** Some transaction of this test's database waits for a row lock: for `eventually`, true or undefined. */
const lockWaited = async (db: Kysely<DB>): Promise<true | undefined> =>
  (await sql`select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db)).rows.length > 0 || undefined;

describe('lock order (postgres): a page recorded while its incident is acknowledged', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('postgres');
  });
  after(() => h.close());

  it('both commit, no deadlock: the page sent, the incident acknowledged and reached by both', async () => {
    const integ = await h.integration();
    await h.ok('POST', '/api/v1/workflows', { body: { name: 'open', trigger: 'alert.created', actions: [{ type: 'create_incident' }] } }, 201);
    const alertId = await h.ingestAlert(integ.path, { title: 'Replica lag on db2', severity: 'critical' });
    const incidentId = await eventually('the incident', async () => ((await h.ok('GET', `/api/v1/alerts/${alertId}`)).data.incidentId as string | null) ?? undefined);
    const page = await h.c.notifications.prepare(h.c.store.db, {
      orgId: h.org.id, alertId, incidentId, channel: 'webhook', target: 'http://127.0.0.1:9/', source: 'escalation',
      escalationId: 'esc_lock_order', step: 0, recipientId: h.org.ownerId, key: 'lock-order:1',
    });
    const db = h.c.store.db;

    let answered: Promise<unknown> | undefined;
    await db.transaction().execute(async (trx) => {
      // The record of the attempt that sent it: the page's row is now this transaction's.
      const at = h.clock.now();
      assert.equal(await notificationsRepo(h.c.store).record(trx, page.id, 0, { status: 'sent', last_error: null, response_status: 200, sent_at: at }, at), true);
      // The answer, in a transaction of its own, as an SMS reply runs it; it waits for the page's row to cancel it.
      answered = db.transaction().execute((a) => h.c.incidents.respond(a, h.org.id, incidentId, 'acknowledged', { type: 'user', id: h.org.ownerId }, at));
      answered.catch(() => undefined); // awaited below, after this transaction
      await eventually('the answer waiting for the page\'s row', () => lockWaited(trx));
      // Then the page counted: the incident's analytics row, which the answer must not hold yet.
      const a = await h.c.alerts.get(h.org.id, alertId);
      const alert = { orgId: h.org.id, severity: a.severity, clientId: a.clientId, integrationId: a.integrationId, fingerprint: a.fingerprint, title: a.title, labels: a.labels };
      await h.c.analytics.pagesSent(trx, [{ alert, incidentId, recipientId: h.org.ownerId, at }]);
    });
    await answered;
    const notifications = (await h.ok('GET', `/api/v1/alerts/${alertId}/notifications`)).data as Array<{ id: string; status: string }>;
    assert.equal(notifications.find((n) => n.id === page.id)?.status, 'sent', 'sent, and recorded so: the cancel came after');
    assert.equal((await h.ok('GET', `/api/v1/incidents/${incidentId}`)).data.status, 'acknowledged');
    const reached = await db.selectFrom('analytics_incidents').select(['ack_ms', 'page_ms']).where('incident_id', '=', incidentId).executeTakeFirstOrThrow();
    assert.ok(reached.ack_ms !== null && reached.page_ms !== null, JSON.stringify(reached));
  });

  it('a shared commit\'s work that loses a deadlock runs again: its caller gets its value, not the error', async () => {
    const db = h.c.store.db;
    await sql`create table lock_probe (id int primary key, v int not null)`.execute(db);
    await sql`insert into lock_probe values (1, 0), (2, 0)`.execute(db);
    const bump = (trx: typeof db, id: number) => sql`update lock_probe set v = v + 1 where id = ${id}`.execute(trx);
    let runs = 0;
    let other: Promise<unknown> | undefined;
    const write = commitTogether<string>(h.c.store);
    const result = write(async (trx) => {
      runs += 1;
      await bump(trx, 1);
      if (runs === 1) {
        // Another transaction holds row 2 and, once this one waits for it, asks for row 1: PostgreSQL ends the
        // one that waited first (this one) when its deadlock_timeout runs out.
        let holding!: () => void;
        const held = new Promise<void>((resolve) => (holding = resolve));
        other = db.transaction().execute(async (o) => {
          await bump(o, 2);
          holding();
          await eventually('the work waiting for row 2', () => lockWaited(db));
          await bump(o, 1);
        });
        await held;
      }
      await bump(trx, 2);
      return 'recorded';
    });
    assert.equal(await result, 'recorded');
    await other;
    assert.equal(runs, 2, 'the deadlock ended the first run, and the work ran again');
    const rows = (await sql<{ v: number }>`select v from lock_probe order by id`.execute(db)).rows;
    assert.deepEqual(rows.map((r) => Number(r.v)), [2, 2], 'each transaction\'s updates once: the lost run left nothing');
  });
});

describe('incident counter (postgres): a run that waited for it and found its incident opened lets it go', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('postgres');
  });
  after(() => h.close());

  /** What openOrJoin needs of a stored alert. */
  const ref = async (alertId: string) => {
    const a = await h.c.alerts.get(h.org.id, alertId);
    return { id: alertId, incidentId: null, orgId: h.org.id, severity: a.severity, clientId: a.clientId, integrationId: a.integrationId, fingerprint: a.fingerprint, title: a.title, labels: a.labels };
  };

  it('another group opens its incident while that run is still uncommitted', async () => {
    const integ = await h.integration();
    const [a1, a2, b1] = [await h.ingestAlert(integ.path, { title: 'Disk full on a1', severity: 'high', labels: { service: 'a' } }),
      await h.ingestAlert(integ.path, { title: 'Disk full on a2', severity: 'high', labels: { service: 'a' } }),
      await h.ingestAlert(integ.path, { title: 'Queue stuck on b1', severity: 'high', labels: { service: 'b' } })];
    // Disabled, so that only this test opens incidents for it.
    const workflowId = (await h.ok('POST', '/api/v1/workflows', { body: { name: 'group', trigger: 'alert.created', enabled: false, actions: [{ type: 'create_incident', groupBy: ['labels.service'] }] } }, 201)).data.id as string;
    const db = h.c.store.db;
    const open = (trx: typeof db, groupKey: string, alertId: string) => ref(alertId).then((alert) =>
      h.c.incidents.openOrJoin(trx, { workflowId, groupKey, title: groupKey, alert }, h.clock.now()));

    let joined!: () => void;
    const reached = new Promise<void>((resolve) => (joined = resolve));
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    let joiner: Promise<{ opened: boolean }> | undefined;
    await db.transaction().execute(async (t1) => {
      assert.equal((await open(t1, 'service=a', a1)).opened, true);
      // A second run of the same group, before the first commits: it waits for the counter.
      joiner = db.transaction().execute(async (t2) => {
        const r = await open(t2, 'service=a', a2);
        joined();
        await held; // its transaction stays open: the rest of a workflow run
        return r;
      });
      joiner.catch(() => undefined);
      await eventually('the second run waiting for the counter', () => lockWaited(db));
    });
    await reached;
    // The joiner holds its transaction open. A new group's incident must not wait for it: before, the counter's
    // lock stayed with it to its commit (lock_timeout turns that wait into a failure instead of a hang).
    try {
      const b = await db.transaction().execute(async (t3) => {
        await sql`set local lock_timeout = '5s'`.execute(t3);
        return open(t3, 'service=b', b1);
      });
      assert.equal(b.opened, true);
      assert.equal(b.incident.number, 2);
    } finally {
      finish();
    }
    assert.equal((await joiner)?.opened, false, 'the second run joined the incident the first opened');
    const incidents = (await h.ok('GET', '/api/v1/incidents')).data as Array<{ number: number; alertCount: number }>;
    assert.deepEqual(incidents.map((i) => [i.number, i.alertCount]).sort(), [[1, 2], [2, 1]]);
  });
});

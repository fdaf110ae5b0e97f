import { sql, type Kysely } from 'kysely';
import { afterCommit, inTransaction, type PgRun, type Store } from '../../db/database.ts';
import { runSql } from '../../db/sql-text.ts';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';
import { pgRecord } from '../analytics/analytics-sql.ts';
import type { AnalyticsService } from '../analytics/analytics-service.ts';
import type { LiveFeed } from '../live/live-feed.ts';
import { addEffects, countRows, noEffects, stored, type AlertState, type Effects, type Stored } from './alert-effects-fns.ts';
import {
  ALERT_COLUMNS, HAS_WORKFLOW_SQL, insertNewSql, OPEN_BY_FINGERPRINT_SQL, PG_TYPES, RESOLVE_BY_ID_SQL, rowParams, SENT, STATE_COLUMNS, upsertSql, valuesSql,
  type SentStatus, type WrittenAlert,
} from './alert-sql.ts';
import type { AlertStatus } from './alerts-fns.ts';
import type { AlertRow } from './alerts-repo.ts';
import type { OpResult, WriteOp } from './alert-writer-types.ts';
import { settled, stable } from './flap-fns.ts';
import { applyFlaps, flapSql, flapStateOf, ruleOf } from './flap-writes.ts';

/** Ids per statement, well under either store's limit on bound parameters. */
const CHUNK = 500;
/** PostgreSQL: each transaction adds its counter changes to one of 16 rows per organization and status, so concurrent writers rarely queue on one row. */
const PG_SHARDS = 16;

const STATE = STATE_COLUMNS.split(', ') as Array<keyof AlertState & keyof AlertRow>;

/** The columns an acknowledge or resolve sets. */
const answered = (to: 'acknowledged' | 'resolved', by: Actor, at: number) => (to === 'acknowledged'
  ? { status: to, acknowledged_at: at, acknowledged_by_type: by.type, acknowledged_by_id: by.id, updated_at: at }
  : { status: to, resolved_at: at, resolved_by_type: by.type, resolved_by_id: by.id, updated_at: at });

/**
 * PostgreSQL: a group commit's effects in one statement (one round trip): the counters, the outbox rows and the
 * live rows, given as arrays, and the NOTIFY that wakes every instance's live stream at commit.
 */
const PG_EFFECTS_SQL = `with counted as (
    insert into alert_counts as c (org_id, status, shard, n)
      select * from unnest($1::text[], $2::text[], $3::integer[], $4::integer[])
      on conflict (org_id, status, shard) do update set n = c.n + excluded.n
  ), queued as (
    insert into alert_events (org_id, alert_id, type, created_at)
      select * from unnest($5::text[], $6::text[], $7::text[], $8::bigint[])
  ), shown as (
    insert into live_events (org_id, type, entity_id, status, severity, title, created_at)
      select * from unnest($9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::bigint[])
      returning 1
  )
  select pg_notify('alertflow_events', '') from (select 1) one where exists (select 1 from shown)`;

function pgEffectParams(fx: Effects): unknown[] {
  const shard = Math.floor(Math.random() * PG_SHARDS);
  const counts = countRows(fx.counts);
  return [
    counts.map((c) => c.orgId), counts.map((c) => c.status), counts.map(() => shard), counts.map((c) => c.n),
    fx.events.map((e) => e.orgId), fx.events.map((e) => e.alertId), fx.events.map((e) => e.type), fx.events.map((e) => e.at),
    fx.live.map((l) => l.orgId), fx.live.map((l) => l.type), fx.live.map((l) => l.id), fx.live.map((l) => l.status),
    fx.live.map((l) => l.severity), fx.live.map((l) => l.title), fx.live.map((l) => l.at),
  ];
}

/**
 * The one writer of alerts. Every change of an alert — ingest, the API's acknowledge and resolve, an incident
 * answered or joined, a workflow's changes, a suppression window releasing alerts, a client deleted — is made
 * here, and in the same transaction so is what follows from it (alert-effects-fns.ts): the status counters,
 * the outbox event for workflows and incidents, the live stream's event. Once that transaction commits, the
 * writer wakes the outbox relay and the live stream of this process (PostgreSQL's NOTIFY wakes the others').
 */
export function alertWriter(deps: { store: Store; live: Pick<LiveFeed, 'record' | 'wake'>; wakeRelay: () => void; analytics: Pick<AnalyticsService, 'record'> }) {
  const { store, live } = deps;
  const pg = store.dialect === 'postgres';
  const p = pg ? (i: number) => `$${i}` : (i: number) => `?${i}`;
  // A row read to be changed is locked (PostgreSQL) so that its status before the change is the one changed.
  const forUpdate = pg ? ' for update' : '';
  const upsertText = new Map(SENT.map((s) => [s, upsertSql(s, valuesSql(p))]));
  const insertNewText = insertNewSql(valuesSql(p));
  const openText = OPEN_BY_FINGERPRINT_SQL(p) + forUpdate;
  const resolveText = RESOLVE_BY_ID_SQL(p);
  const hasWorkflowText = HAS_WORKFLOW_SQL(p);
  const flapText = flapSql(store.dialect, p);
  const manyText = upsertSql('firing', `select * from unnest(${ALERT_COLUMNS.map((c, i) => `$${i + 1}::${PG_TYPES[c]}[]`).join(', ')})`);

  const stateOf = (r: Omit<Pick<AlertRow, (typeof STATE)[number]>, 'labels'> & { labels: unknown }): AlertState => ({
    id: r.id, org_id: r.org_id, status: r.status, occurrences: Number(r.occurrences), incident_id: r.incident_id,
    severity: r.severity, title: r.title, created_at: Number(r.created_at), updated_at: Number(r.updated_at),
    fingerprint: r.fingerprint, client_id: r.client_id, integration_id: r.integration_id, labels: r.labels,
  });

  /** The changes of one call, and which organizations have workflows (each read once, in the transaction). */
  interface Batch {
    fx: Effects;
    workflows: Map<string, Promise<boolean>>;
  }
  const workflowsOf = (db: Kysely<DB>, b: Batch, orgId: string): Promise<boolean> => {
    let yes = b.workflows.get(orgId);
    if (!yes) b.workflows.set(orgId, (yes = runSql(db, hasWorkflowText, [orgId]).then((r) => r.length > 0)));
    return yes;
  };
  const effect = async (db: Kysely<DB>, b: Batch, before: AlertState | null, after: AlertState) =>
    addEffects(b.fx, before, after, await workflowsOf(db, b, after.org_id));

  /** Stores a batch's effects in its transaction and wakes the relay and the live stream once it commits. */
  async function flush(db: Kysely<DB>, fx: Effects): Promise<void> {
    // First: a fingerprint that starts flapping adds an outbox event and a count to what is stored next.
    if (fx.flaps.length > 0) await applyFlaps(flapText, fx, (_name, text, params) => runSql(db, text, params));
    const counts = countRows(fx.counts);
    if (counts.length > 0) {
      const shard = pg ? Math.floor(Math.random() * PG_SHARDS) : 0;
      await db.insertInto('alert_counts').values(counts.map((c) => ({ org_id: c.orgId, status: c.status, shard, n: c.n })))
        .onConflict((oc) => oc.columns(['org_id', 'status', 'shard']).doUpdateSet({ n: sql<number>`alert_counts.n + excluded.n` }))
        .execute();
    }
    for (let i = 0; i < fx.events.length; i += CHUNK) {
      await db.insertInto('alert_events')
        .values(fx.events.slice(i, i + CHUNK).map((e) => ({ org_id: e.orgId, alert_id: e.alertId, type: e.type, created_at: e.at }))).execute();
    }
    if (fx.events.length > 0) afterCommit(db, deps.wakeRelay);
    await live.record(db, fx.live);
    await deps.analytics.record(db, fx.facts);
  }

  /** Runs `fn` in `db`'s transaction (or a new one) and stores what its writes call for in the same one. */
  const writing = <T>(db: Kysely<DB>, fn: (trx: Kysely<DB>, b: Batch) => Promise<T>): Promise<T> => inTransaction(db, async (trx) => {
    const b: Batch = { fx: noEffects(), workflows: new Map() };
    const result = await fn(trx, b);
    await flush(trx, b.fx);
    return result;
  });

  /** Moves the rows of `before` with `set`, returning each as it is after. */
  async function move(db: Kysely<DB>, b: Batch, before: AlertState[], set: Record<string, unknown>): Promise<AlertRow[]> {
    const out: AlertRow[] = [];
    for (let i = 0; i < before.length; i += CHUNK) {
      const part = before.slice(i, i + CHUNK);
      const rows = await db.updateTable('alerts').set(set).where('id', 'in', part.map((r) => r.id)).returningAll().execute();
      const was = new Map(part.map((r) => [r.id, r]));
      for (const r of rows) await effect(db, b, was.get(r.id) as AlertState, stateOf(r));
      out.push(...rows);
    }
    return out;
  }
  const select = (db: Kysely<DB>) => db.selectFrom('alerts').select(STATE);
  const locked = async (q: ReturnType<typeof select>): Promise<AlertState[]> => (await (pg ? q.forUpdate() : q).execute()).map(stateOf);

  /** After a commit of effects stored outside Kysely (ingest's batches): wakes what they feed. */
  function woke(stored: Stored): void {
    if (stored.events > 0) deps.wakeRelay();
    if (stored.live > 0) live.wake();
  }

  /** One ingest op through `db` (SQLite on Kysely's connection, or PostgreSQL). */
  async function ingestOp(db: Kysely<DB>, b: Batch, op: WriteOp): Promise<OpResult> {
    if (op.kind === 'resolve') {
      const [before] = (await runSql<AlertState>(db, openText, [op.orgId, op.fingerprint])).map(stateOf);
      if (!before) return null;
      await runSql(db, resolveText, [op.at, op.by.type, op.by.id, before.id]);
      await effect(db, b, before, { ...before, status: 'resolved', updated_at: op.at });
      return before.id;
    }
    if (op.sent === 'firing') {
      const [after] = await runSql<WrittenAlert>(db, upsertText.get('firing') as string, rowParams(op.row));
      const w = after as WrittenAlert;
      const inserted = Number(w.occurrences) === op.row.occurrences;
      await effect(db, b, inserted ? null : { ...stateOf(w), occurrences: Number(w.occurrences) - op.row.occurrences }, stateOf(w));
      return w;
    }
    // A status that can move the open alert: its status before is read (and locked) first. With none open, the
    // row is inserted unless another writer inserted one meanwhile, which is then read (waiting for its commit).
    let [before] = (await runSql<AlertState>(db, openText, [op.row.org_id, op.row.fingerprint])).map(stateOf);
    if (!before) {
      const [fresh] = await runSql<WrittenAlert>(db, insertNewText, rowParams(op.row));
      if (fresh) {
        await effect(db, b, null, stateOf(fresh));
        return fresh;
      }
      [before] = (await runSql<AlertState>(db, openText, [op.row.org_id, op.row.fingerprint])).map(stateOf);
    }
    const [after] = await runSql<WrittenAlert>(db, upsertText.get(op.sent) as string, rowParams(op.row));
    await effect(db, b, before ?? null, stateOf(after as WrittenAlert));
    return after as WrittenAlert;
  }

  return {
    /** Moves one alert from one of `from` to `to`; undefined when it was not in `from`. */
    transition: (db: Kysely<DB>, orgId: string, id: string, from: readonly AlertStatus[], to: 'acknowledged' | 'resolved', by: Actor, at: number): Promise<AlertRow | undefined> =>
      writing(db, async (trx, b) => {
        const before = await locked(select(trx).where('org_id', '=', orgId).where('id', '=', id).where('status', 'in', [...from]));
        return (await move(trx, b, before, answered(to, by, at)))[0];
      }),

    /** Moves every alert of an incident that is in one of `from` to `to` (the incident was answered); how many moved. */
    transitionOfIncident: (db: Kysely<DB>, orgId: string, incidentId: string, from: readonly AlertStatus[], to: 'acknowledged' | 'resolved', by: Actor, at: number): Promise<number> =>
      writing(db, async (trx, b) => {
        const before = await locked(select(trx).where('org_id', '=', orgId).where('incident_id', '=', incidentId).where('status', 'in', [...from]));
        return (await move(trx, b, before, answered(to, by, at))).length;
      }),

    /**
     * A workflow's changes to an alert (severity, labels, suppression). Suppressed by a workflow, it belongs
     * to no window, so no window's end returns it to firing.
     */
    change: (db: Kysely<DB>, orgId: string, id: string, changes: { severity?: string; labels?: string; status?: 'suppressed' }, at: number): Promise<void> =>
      writing(db, async (trx, b) => {
        const before = await locked(select(trx).where('org_id', '=', orgId).where('id', '=', id));
        await move(trx, b, before, { ...changes, ...(changes.status && { suppression_id: null }), updated_at: at });
      }),

    /** Puts an alert into an incident, once: false when it was in it already. */
    attachIncident: (db: Kysely<DB>, orgId: string, alertId: string, incidentId: string, at: number): Promise<boolean> =>
      writing(db, async (trx, b) => {
        const before = await locked(select(trx).where('org_id', '=', orgId).where('id', '=', alertId)
          .where((eb) => eb.or([eb('incident_id', 'is', null), eb('incident_id', '!=', incidentId)])));
        return (await move(trx, b, before, { incident_id: incidentId, updated_at: at })).length > 0;
      }),

    /**
     * Returns suppressed alerts to `firing`; only those still suppressed by window `from` move (one acknowledged
     * or resolved meanwhile stays so). Returns the ids that moved.
     */
    release: (db: Kysely<DB>, orgId: string, ids: string[], from: string, at: number): Promise<string[]> =>
      writing(db, async (trx, b) => {
        const moved: string[] = [];
        for (let i = 0; i < ids.length; i += CHUNK) {
          const before = await locked(select(trx).where('org_id', '=', orgId).where('id', 'in', ids.slice(i, i + CHUNK))
            .where(sql<boolean>`status = 'suppressed'`).where('suppression_id', '=', from));
          moved.push(...(await move(trx, b, before, { status: 'firing', suppression_id: null, updated_at: at })).map((r) => r.id));
        }
        return moved;
      }),

    /** Hands suppressed alerts from one window to another; only those still suppressed by `from` move. */
    async repoint(db: Kysely<DB>, orgId: string, ids: string[], from: string, to: string, at: number): Promise<void> {
      for (let i = 0; i < ids.length; i += CHUNK) {
        await db.updateTable('alerts').set({ suppression_id: to, updated_at: at })
          .where('org_id', '=', orgId).where('id', 'in', ids.slice(i, i + CHUNK)).where(sql<boolean>`status = 'suppressed'`).where('suppression_id', '=', from)
          .execute();
      }
    },

    /**
     * Ends the flapping of fingerprints that have not changed for their integration's stable time (a sweep,
     * some at a time): their alerts lose the mark, and `alert.stable` (the notice) is queued for the newest
     * alert. A fingerprint that changed meanwhile is left for the change to decide. Returns how many ended.
     */
    settleFlaps: (db: Kysely<DB>, now: number, limit = 100): Promise<number> =>
      writing(db, async (trx, b) => {
        const candidates = await trx.selectFrom('alert_flaps as f')
          .innerJoin('integrations as i', (j) => j.onRef('i.org_id', '=', 'f.org_id').onRef('i.id', '=', 'f.integration_id'))
          .select(['f.org_id', 'f.integration_id', 'f.fingerprint', 'f.changes', 'f.flapping', 'f.since', 'f.last_change_at', 'i.flap_threshold', 'i.flap_window_seconds', 'i.flap_stable_seconds'])
          .where('f.flapping', '=', 1).orderBy('f.last_change_at').limit(limit).execute();
        let ended = 0;
        for (const r of candidates) {
          const state = flapStateOf(r);
          if (!settled(state, now, ruleOf(r))) continue;
          const after = stable(state);
          const done = await trx.updateTable('alert_flaps').set({ changes: JSON.stringify(after.changes), flapping: 0 })
            .where('org_id', '=', r.org_id).where('integration_id', '=', r.integration_id).where('fingerprint', '=', r.fingerprint)
            .where('flapping', '=', 1).where('last_change_at', '=', r.last_change_at).executeTakeFirst();
          if (Number(done.numUpdatedRows) === 0) continue;
          const marked = await trx.updateTable('alerts').set({ flapping: 0 })
            .where('org_id', '=', r.org_id).where('integration_id', '=', r.integration_id).where('fingerprint', '=', r.fingerprint).where('flapping', '=', 1)
            .returning(['id', 'created_at']).execute();
          const newest = marked.sort((x, y) => Number(y.created_at) - Number(x.created_at))[0];
          if (newest) b.fx.events.push({ orgId: r.org_id, alertId: newest.id, type: 'alert.stable', at: now });
          ended += 1;
        }
        return ended;
      }),

    /** A deleted client's alerts belong to no client (kept, as everything else about them). */
    async detachClient(db: Kysely<DB>, orgId: string, clientId: string, at: number): Promise<void> {
      await db.updateTable('alerts').set({ client_id: null, updated_at: at }).where('org_id', '=', orgId).where('client_id', '=', clientId).execute();
    },

    /**
     * Ingest's ops of one payload in `db` (a transaction, or the store for a payload of one op, which then gets
     * a transaction of its own), statement by statement, with their effects; `pause` between chunks lets the
     * event loop turn during a long payload.
     */
    ingest: (db: Kysely<DB>, ops: readonly WriteOp[], pause?: (done: number) => Promise<void>): Promise<OpResult[]> =>
      writing(db, async (trx, b) => {
        const out: OpResult[] = [];
        for (const op of ops) {
          if (pause) await pause(out.length);
          out.push(await ingestOp(trx, b, op));
        }
        return out;
      }),

    /**
     * PostgreSQL's group commit: firing alerts of many requests, distinct by (organization, fingerprint), each
     * with `occurrences` = how many times the batch sent it, upserted by one statement in one transaction with
     * their effects (two statements more). Rows go in the caller's order: sorted by (organization, fingerprint),
     * two instances' batches lock shared alerts in the same order.
     */
    async upsertFiringMany(rows: readonly AlertRow[]): Promise<WrittenAlert[]> {
      const prepared = store.pg;
      if (!prepared) throw new Error('upsertFiringMany is PostgreSQL\'s');
      const fx = noEffects();
      const sent = new Map(rows.map((r) => [`${r.org_id}\u0000${r.fingerprint}`, r.occurrences]));
      const written = await prepared.transaction(async (run: PgRun) => {
        const orgIds = [...new Set(rows.map((r) => r.org_id))];
        const withWorkflows = new Set((await run<{ org_id: string }>(
          'select distinct org_id from workflows where org_id = any($1) and enabled = 1', [orgIds])).map((r) => r.org_id));
        const out = await run<WrittenAlert>(manyText, ALERT_COLUMNS.map((c) => rows.map((r) => r[c])));
        for (const w of out) {
          const times = sent.get(`${w.org_id}\u0000${w.fingerprint}`) as number;
          const after = stateOf(w);
          addEffects(fx, Number(w.occurrences) === times ? null : { ...after, occurrences: after.occurrences - times }, after, withWorkflows.has(w.org_id));
        }
        if (fx.flaps.length > 0) await applyFlaps(flapText, fx, (_name, text, params) => run(text, params));
        await run(PG_EFFECTS_SQL, pgEffectParams(fx));
        await pgRecord(run, fx.facts);
        return out;
      });
      woke(stored(fx));
      return written;
    },

    woke,
  };
}
export type AlertWriter = ReturnType<typeof alertWriter>;
export type { SentStatus };

import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { sqliteRollups } from '../analytics/analytics-sql.ts';
import { addEffects, countRows, type AlertState, type Effects } from './alert-effects-fns.ts';
import { HAS_WORKFLOW_SQL, OPEN_BY_FINGERPRINT_SQL, RESOLVE_BY_ID_SQL, rowParams, SENT, upsertSql, valuesSql, type WrittenAlert } from './alert-sql.ts';
import type { OpResult, WriteOp } from './alert-writer-types.ts';
import { applyFlapsSync, flapSql } from './flap-writes.ts';

const p = (i: number) => `?${i}`;

/**
 * Ingest's writes on a SQLite connection (the main thread's, or the ingest writer thread's: see
 * ingest-writer.ts), as synchronous prepared statements inside a transaction the caller holds. Each write adds
 * what follows from it (alert-effects-fns.ts) to the caller's `Effects`; `flush` stores them before the commit.
 */
export function sqliteAlertWrites(raw: DatabaseSync) {
  const upserts = new Map(SENT.map((s) => [s, raw.prepare(upsertSql(s, valuesSql(p)))]));
  const openByFingerprint = raw.prepare(OPEN_BY_FINGERPRINT_SQL(p));
  const resolveById = raw.prepare(RESOLVE_BY_ID_SQL(p));
  const hasWorkflow = raw.prepare(HAS_WORKFLOW_SQL(p));
  const addCount = raw.prepare(`insert into alert_counts (org_id, status, shard, n) values (?1, ?2, 0, ?3)
    on conflict (org_id, status, shard) do update set n = n + excluded.n`);
  const addEvent = raw.prepare('insert into alert_events (org_id, alert_id, type, created_at) values (?1, ?2, ?3, ?4)');
  const addLive = raw.prepare('insert into live_events (org_id, type, entity_id, status, severity, title, created_at) values (?1, ?2, ?3, ?4, ?5, ?6, ?7)');
  const rollups = sqliteRollups(raw);
  const flapText = flapSql('sqlite', p);
  const flapStatements = new Map<string, StatementSync>();
  const flapRun = (name: string, text: string, params: unknown[]) => {
    let st = flapStatements.get(name);
    if (!st) flapStatements.set(name, (st = raw.prepare(text)));
    return st.all(...(params as Array<string | number | null>)) as Array<Record<string, unknown>>;
  };

  /** Whether the organization has an enabled workflow, read once per batch (the transaction holds the write lock, so it cannot change meanwhile). */
  const workflowsOf = (known: Map<string, boolean>, orgId: string): boolean => {
    let yes = known.get(orgId);
    if (yes === undefined) known.set(orgId, (yes = hasWorkflow.get(orgId) !== undefined));
    return yes;
  };
  const open = (orgId: string, fingerprint: string) => openByFingerprint.get(orgId, fingerprint) as AlertState | undefined;

  return {
    /**
     * One op. A firing upsert's row comes back with as many occurrences as it was sent when it was inserted;
     * any other status than firing can move an open alert, whose status before is read first.
     */
    apply(op: WriteOp, fx: Effects, workflows: Map<string, boolean>): OpResult {
      if (op.kind === 'resolve') {
        const before = open(op.orgId, op.fingerprint);
        if (!before) return null;
        resolveById.run(op.at, op.by.type, op.by.id, before.id);
        addEffects(fx, before, { ...before, status: 'resolved', updated_at: op.at }, workflowsOf(workflows, op.orgId));
        return before.id;
      }
      const before = op.sent === 'firing' ? null : open(op.row.org_id, op.row.fingerprint);
      const after = (upserts.get(op.sent) as StatementSync).get(...rowParams(op.row)) as unknown as WrittenAlert;
      const inserted = Number(after.occurrences) === op.row.occurrences;
      addEffects(fx, inserted ? null : before ?? { ...after, occurrences: after.occurrences - op.row.occurrences }, after, workflowsOf(workflows, after.org_id));
      return after;
    },

    /** Stores the gathered effects in the open transaction. */
    flush(fx: Effects): void {
      // First: a fingerprint that starts flapping adds an outbox event and a count to what is stored next.
      if (fx.flaps.length > 0) applyFlapsSync(flapText, fx, flapRun);
      for (const c of countRows(fx.counts)) addCount.run(c.orgId, c.status, c.n);
      for (const e of fx.events) addEvent.run(e.orgId, e.alertId, e.type, e.at);
      for (const l of fx.live) addLive.run(l.orgId, l.type, l.id, l.status, l.severity, l.title, l.at);
      rollups.record(fx.facts);
    },
  };
}
export type SqliteAlertWrites = ReturnType<typeof sqliteAlertWrites>;

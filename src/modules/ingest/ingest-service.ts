import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { orderedId } from '../../lib/ids.ts';
import type { AlertStatus } from '../alerts/alerts-fns.ts';
import type { AlertRow } from '../alerts/alerts-repo.ts';
import type { IntegrationRow } from '../integrations/integrations-repo.ts';
import { inForceAt, matchingWindow, type InForce } from '../suppression/suppression-fns.ts';
import type { IngestCache, OrgConfig } from './ingest-cache.ts';
import type { IngestRepo } from './ingest-repo.ts';
import type { WrittenAlert } from '../alerts/alert-sql.ts';
import type { AlertWriter } from '../alerts/alert-writer.ts';
import { sqliteAlertWrites } from '../alerts/alert-writer-sqlite.ts';
import type { OpResult, Resolver, WriteOp } from '../alerts/alert-writer-types.ts';
import type { AlertPreview, IngestOutcome } from './ingest-schemas.ts';
import { retried } from '../../db/retry.ts';
import { groupCommitWriter, type Settled } from '../../db/group-commit.ts';
import { INGEST_CHUNK, runSqliteBatch, sqliteWriterThread } from './ingest-writer.ts';
import { checkMapping, type Mapping } from './mapping-fns.ts';
import { normalize, normalizePayload, type NormalizedAlert } from './normalize-fns.ts';
import { effectiveMapping } from './presets.ts';
import { yieldToLoop } from '../../lib/yield.ts';

/** A request's alerts, as written: all of them or none. */
type Job = WriteOp[];
type UpsertOp = Extract<WriteOp, { kind: 'upsert' }>;

const resolvedOutcome = (fingerprint: string, id: string | null): IngestOutcome => id
  ? { alertId: id, fingerprint, status: 'resolved', action: 'resolved' }
  : { alertId: null, fingerprint, status: null, action: 'ignored' };

/** A row that comes back with as many occurrences as the statement sent it is new: it was inserted. */
function upsertOutcome(item: UpsertOp, r: WrittenAlert, created: boolean): IngestOutcome {
  const status = r.status as AlertStatus;
  const fingerprint = item.row.fingerprint;
  if (created) return { alertId: r.id, fingerprint, status, action: item.windowId ? 'suppressed' : 'created' };
  return { alertId: r.id, fingerprint, status, action: item.sent === 'firing' ? 'deduplicated' : item.sent };
}

const createdOnce = (item: UpsertOp, r: WrittenAlert) => upsertOutcome(item, r, Number(r.occurrences) === 1);

const allFiring = (job: Job) => job.every((i) => i.kind === 'upsert' && i.sent === 'firing');

const outcomes = (ops: Job, results: OpResult[]): IngestOutcome[] => ops.map((op, i) => (op.kind === 'resolve'
  ? resolvedOutcome(op.fingerprint, results[i] as string | null)
  : createdOnce(op, results[i] as WrittenAlert)));

/** Who sends alerts: an integration, or a sender of the service's own (a heartbeat) with no integration. */
export interface Sender {
  orgId: string;
  integrationId: string | null;
  clientId: string | null;
  actor: Resolver;
}

const senderOf = (integration: IntegrationRow): Sender => ({
  orgId: integration.org_id,
  integrationId: integration.id,
  clientId: integration.client_id,
  actor: { type: 'integration', id: integration.id },
});

export function ingestService(deps: { store: Store; repo: IngestRepo; writer: AlertWriter; cache: IngestCache; clock: Clock; batchMax: number; writerThread: boolean }) {
  const { store, repo, writer: alerts, cache, clock } = deps;

  const mappingOf = (integration: IntegrationRow): Mapping | null =>
    effectiveMapping(integration.preset, integration.mapping === null ? null : store.readJson<Mapping>(integration.mapping));

  /** The organization's windows and client slugs as of now. */
  const orgNow = async (orgId: string): Promise<OrgConfig> => cache.org(orgId, await repo.version(orgId));

  function normalizeOrThrow(mapping: Mapping | null, body: unknown): NormalizedAlert[] {
    const result = normalizePayload(mapping, body);
    if (!result.ok) throw new AppError('VALIDATION_ERROR', 'Alert payload is invalid', result.errors);
    return result.alerts;
  }

  /** Stores an integration's alerts, all or none, once committed; `version`: the config version its request read. */
  async function write(integration: IntegrationRow, version: number, list: NormalizedAlert[]): Promise<IngestOutcome[]> {
    const org = await cache.org(integration.org_id, version);
    const now = clock.now();
    const sender = senderOf(integration);
    const inForce = inForceAt(now);
    return writer.write(list.map((a) => itemOf(sender, org, a, now, inForce)));
  }

  /** An alert belongs to the client whose slug is its `labels.client`, else to its sender's client. */
  const clientIdOf = (sender: Sender, org: OrgConfig, labels: Record<string, string>): string | null =>
    (labels.client !== undefined ? org.clientsBySlug.get(labels.client) : undefined) ?? sender.clientId;

  /** `inForce`: the request's answers on which windows are in force at `now` (each rule walked once). */
  function itemOf(sender: Sender, org: OrgConfig, a: NormalizedAlert, now: number, inForce: InForce): WriteOp {
    if (a.status === 'resolved') return { kind: 'resolve', orgId: sender.orgId, fingerprint: a.fingerprint, by: sender.actor, at: now };
    const clientId = clientIdOf(sender, org, a.labels);
    const acked = a.status === 'acknowledged';
    const title = a.title as string;
    const severity = a.severity as string;
    // A new firing alert that a suppression window in force holds is stored suppressed by that window (contract §4).
    const windowId = a.status === 'firing'
      ? matchingWindow(org.windows, { ...a, title, severity, clientId, integrationId: sender.integrationId }, inForce)
      : null;
    const row: AlertRow = {
      // Ids in time order: a new alert's primary-key entry lands at the end of the index, not on a random page.
      id: orderedId('alt', now),
      org_id: sender.orgId,
      integration_id: sender.integrationId,
      client_id: clientId,
      incident_id: null,
      fingerprint: a.fingerprint,
      title,
      severity,
      status: windowId ? 'suppressed' : a.status,
      source: a.source,
      description: a.description,
      labels: JSON.stringify(a.labels),
      annotations: JSON.stringify(a.annotations),
      payload: JSON.stringify(a.payload),
      occurrences: 1,
      last_seen_at: now,
      acknowledged_at: acked ? now : null,
      acknowledged_by_type: acked ? sender.actor.type : null,
      acknowledged_by_id: acked ? sender.actor.id : null,
      resolved_at: null,
      resolved_by_type: null,
      resolved_by_id: null,
      suppression_id: windowId,
      created_at: now,
      updated_at: now,
    };
    return { kind: 'upsert', row, sent: a.status, windowId };
  }

  /**
   * One job through the alert writer, in `db`'s transaction (or one of its own). A payload of many alerts is one
   * transaction but not one turn of the event loop: other requests are answered meanwhile.
   */
  const applyAsync = async (db: Kysely<DB>, job: Job): Promise<IngestOutcome[]> =>
    outcomes(job, await alerts.ingest(db, job, async (done) => {
      if (done > 0 && done % INGEST_CHUNK === 0) await yieldToLoop();
    }));

  /** PostgreSQL, one job alone (a resolve or an acknowledgement): one transaction. */
  const alone = (job: Job): Promise<IngestOutcome[]> => retried(() => applyAsync(store.db, job));

  const settle = async <R,>(p: Promise<R>): Promise<Settled<R>> => p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));

  /**
   * PostgreSQL group commit: the firing alerts of every job in the batch go in one multi-row upsert (one
   * statement, so all of them or none), the same fingerprint sent several times merged into one row that
   * counts them all. Rows go in (organization, fingerprint) order, so that two instances' batches lock
   * shared alerts in the same order. Jobs that resolve or acknowledge run alone; if the batch statement
   * fails for a reason other than a deadlock, each of its jobs runs alone, so only a failing one fails.
   */
  async function postgresBatch(jobs: Job[]): Promise<Array<Settled<IngestOutcome[]>>> {
    const out = new Array<Promise<Settled<IngestOutcome[]>>>(jobs.length);
    const merged = new Map<string, { row: AlertRow; times: number }>();
    const fast: number[] = [];
    jobs.forEach((job, i) => {
      if (!allFiring(job)) {
        out[i] = settle(alone(job));
        return;
      }
      fast.push(i);
      for (const item of job) {
        const row = (item as UpsertOp).row;
        const key = `${row.org_id}\u0000${row.fingerprint}`;
        const m = merged.get(key);
        if (!m) merged.set(key, { row: { ...row }, times: 1 });
        else {
          m.times++;
          m.row.occurrences = m.times;
          // Sent later: as a matched alert's update would, the last payload and time win.
          m.row.payload = row.payload;
          m.row.last_seen_at = m.row.updated_at = Math.max(m.row.last_seen_at, row.last_seen_at);
        }
      }
    });
    if (fast.length > 0) {
      const keys = [...merged.keys()].sort();
      let results: Map<string, WrittenAlert> | null = null;
      try {
        const rows = await retried(() => alerts.upsertFiringMany(keys.map((k) => (merged.get(k) as { row: AlertRow }).row)));
        results = new Map(rows.map((r) => [`${r.org_id}\u0000${r.fingerprint}`, r]));
      } catch {
        for (const i of fast) out[i] = settle(alone(jobs[i] as Job));
      }
      if (results) {
        const seen = new Set<string>();
        for (const i of fast) {
          const job = jobs[i] as Job;
          out[i] = Promise.resolve({
            ok: true,
            value: job.map((item) => {
              const upsert = item as UpsertOp;
              const key = `${upsert.row.org_id}\u0000${upsert.row.fingerprint}`;
              const r = results.get(key) as WrittenAlert;
              const first = !seen.has(key);
              seen.add(key);
              // Only the first sender of a merged row can have created it; the others deduplicated it.
              return upsertOutcome(upsert, r, first && Number(r.occurrences) === (merged.get(key) as { times: number }).times);
            }),
          });
        }
      }
    }
    return Promise.all(out);
  }

  // SQLite: on this thread, or on a writer thread when configured and the file can be opened twice.
  const conn = store.sqlite;
  const thread = deps.writerThread && conn && conn.file !== ':memory:' ? sqliteWriterThread(conn.file) : null;
  const writes = conn && !thread ? sqliteAlertWrites(conn.raw) : null;
  const runSqlite = thread?.run ?? (conn && writes ? (jobs: Job[]) => conn.exclusive((raw) => runSqliteBatch(raw, writes, jobs, yieldToLoop)) : null);
  const writer = runSqlite
    ? groupCommitWriter(deps.batchMax, async (jobs: Job[]) => {
      const batch = await runSqlite(jobs);
      // Committed: the relay and the live stream have rows to read.
      alerts.woke(batch.stored);
      return batch.out.map((r, i): Settled<IngestOutcome[]> => (r.ok ? { ok: true, value: outcomes(jobs[i] as Job, r.value) } : r));
    })
    : groupCommitWriter(deps.batchMax, postgresBatch);

  return {
    /**
     * Maps and validates a payload and stores its alerts, all or none; resolves only once they are
     * committed (a 200 means stored). `version`: the organization's config version this request read.
     */
    ingest: (integration: IntegrationRow, version: number, body: unknown): Promise<IngestOutcome[]> =>
      write(integration, version, normalizeOrThrow(mappingOf(integration), body)),

    /**
     * One alert that an adapter of a vendor's API (PagerDuty, Opsgenie) already translated into the standard
     * payload: the integration's mapping does not apply, and `raw`, the sender's own event, is what the alert keeps.
     */
    ingestTranslated(integration: IntegrationRow, version: number, payload: Record<string, unknown>, raw: unknown): Promise<IngestOutcome[]> {
      const result = normalize(payload, raw);
      if (!result.ok) throw new AppError('VALIDATION_ERROR', 'Alert payload is invalid', result.errors);
      return write(integration, version, [result.alert]);
    },

    /**
     * Stores alerts of a sender that is not an integration inside the caller's transaction `db`, through the
     * same suppression windows, client slugs and deduplication as ingest: the caller commits its own change
     * and the alerts together, or neither. `org`: read before the transaction (see `orgConfig`).
     */
    writeIn: (db: Kysely<DB>, sender: Sender, org: OrgConfig, alerts: NormalizedAlert[]): Promise<IngestOutcome[]> => {
      const now = clock.now();
      const inForce = inForceAt(now);
      return applyAsync(db, alerts.map((a) => itemOf(sender, org, a, now, inForce)));
    },

    /** The organization's current windows and client slugs, to pass to `writeIn`. */
    orgConfig: orgNow,


    /**
     * What ingest would store for this payload, through `mapping` when given (null: the standard payload),
     * or the errors it would answer with. Stores nothing. An invalid `mapping` itself is a 400.
     */
    async preview(integration: IntegrationRow, body: unknown, mapping?: Mapping | null): Promise<{ ok: boolean; alerts: AlertPreview[]; errors: ErrorDetail[] }> {
      const invalid = mapping ? checkMapping(mapping) : [];
      if (invalid.length > 0) throw new AppError('VALIDATION_ERROR', 'Mapping is invalid', invalid);
      const result = normalizePayload(mapping === undefined ? mappingOf(integration) : mapping, body);
      if (!result.ok) return { ok: false, alerts: [], errors: result.errors };
      const org = await orgNow(integration.org_id);
      const alerts = result.alerts.map(({ payload: _raw, ...a }) => ({ ...a, clientId: clientIdOf(senderOf(integration), org, a.labels) }));
      return { ok: true, alerts, errors: [] };
    },

    /** Ends the SQLite writer thread; call once no request is in flight. */
    close: async (): Promise<void> => thread?.close(),
  };
}
export type IngestService = ReturnType<typeof ingestService>;

import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import type { Actor } from '../../lib/actor.ts';
import { iso, isoOrNull, type Clock } from '../../lib/clock.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { periodic } from '../../lib/periodic.ts';
import { paginate, type CursorCodec, type Page } from '../../lib/pagination.ts';
import { hashKey } from '../api-keys/api-keys-fns.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { ClientsRepo } from '../clients/clients-repo.ts';
import type { IngestService, Sender } from '../ingest/ingest-service.ts';
import { dueAt, missedAlert, newPingToken, reportedState, resolvedAlert } from './heartbeats-fns.ts';
import type { HeartbeatRow, HeartbeatsRepo } from './heartbeats-repo.ts';
import type { CreateHeartbeatBody, Heartbeat, HeartbeatWithToken, UpdateHeartbeatBody } from './heartbeats-schemas.ts';

/** Missed heartbeats claimed per look; the checker looks again at once while it finds this many. */
const CHECK_BATCH = 100;

export function heartbeatsService(deps: {
  store: Store;
  repo: HeartbeatsRepo;
  clients: ClientsRepo;
  ingest: IngestService;
  audit: AuditService;
  clock: Clock;
  cursors: CursorCodec;
  log: Logger;
  baseUrl: string;
}) {
  const { store, repo, clients, ingest, audit, clock, cursors, log } = deps;

  const toHeartbeat = (r: HeartbeatRow): Heartbeat => ({
    id: r.id,
    name: r.name,
    intervalSeconds: Number(r.interval_seconds),
    graceSeconds: Number(r.grace_seconds),
    severity: r.severity as Heartbeat['severity'],
    clientId: r.client_id,
    labels: store.readJson<Record<string, string>>(r.labels),
    paused: r.paused === 1,
    state: reportedState(r),
    lastPingAt: isoOrNull(r.last_ping_at === null ? null : Number(r.last_ping_at)),
    nextDueAt: iso(Number(r.due_at)),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  });

  const withToken = (r: HeartbeatRow, token: string): HeartbeatWithToken => ({
    ...toHeartbeat(r), token, pingUrl: `${deps.baseUrl}/api/inbound/heartbeat/${token}`,
  });

  /** A heartbeat's alerts come from no integration; the system acts for it, naming it. */
  const senderOf = (r: HeartbeatRow): Sender => ({ orgId: r.org_id, integrationId: null, clientId: r.client_id, actor: { type: 'system', id: r.id } });

  async function checkClient(orgId: string, clientId: string | null | undefined): Promise<void> {
    if (clientId != null && !(await clients.get(store.db, orgId, clientId))) {
      throw new AppError('VALIDATION_ERROR', 'Heartbeat is invalid', [{ path: '/clientId', message: 'no such client in this organization' }]);
    }
  }

  /** Claims one missed heartbeat and opens its alert, in one transaction: true when this call did it. */
  async function raise(orgId: string, id: string, at: number): Promise<boolean> {
    const org = await ingest.orgConfig(orgId);
    return store.db.transaction().execute(async (trx) => {
      const claimed = await repo.claimMissed(trx, orgId, id, at);
      if (!claimed) return false;
      await ingest.writeIn(trx, senderOf(claimed), org, [missedAlert({ ...claimed, labels: store.readJson(claimed.labels) })]);
      return true;
    });
  }

  /** Opens an alert for every heartbeat missed by now; the number opened by this call. */
  async function checkDue(): Promise<number> {
    let raised = 0;
    for (;;) {
      const at = clock.now();
      const due = await repo.due(store.db, at, CHECK_BATCH);
      for (const d of due) if (await raise(d.org_id, d.id, at)) raised++;
      if (due.length < CHECK_BATCH) break;
    }
    return raised;
  }

  return {
    async create(orgId: string, actor: Actor, input: CreateHeartbeatBody): Promise<HeartbeatWithToken> {
      await checkClient(orgId, input.clientId);
      const now = clock.now();
      const token = newPingToken();
      const interval = input.intervalSeconds;
      const grace = input.graceSeconds ?? 60;
      const row: HeartbeatRow = {
        id: newId('hbt'),
        org_id: orgId,
        name: input.name,
        interval_seconds: interval,
        grace_seconds: grace,
        severity: input.severity ?? 'critical',
        client_id: input.clientId ?? null,
        labels: JSON.stringify(input.labels ?? {}),
        paused: input.paused ? 1 : 0,
        token_hash: hashKey(token),
        state: 'new',
        last_ping_at: null,
        due_at: dueAt(null, now, interval, grace),
        created_at: now,
        updated_at: now,
      };
      await store.db.transaction().execute(async (trx) => {
        await repo.insert(trx, row);
        await audit.record(trx, { orgId, action: 'heartbeat.created', actor, target: { type: 'heartbeat', id: row.id }, metadata: { name: row.name } });
      });
      return withToken(row, token);
    },

    async get(orgId: string, id: string): Promise<Heartbeat> {
      const row = await repo.get(store.db, orgId, id);
      if (!row) throw notFound('Heartbeat');
      return toHeartbeat(row);
    },

    list(orgId: string, query: { limit: number; cursor?: string | undefined }): Promise<Page<Heartbeat>> {
      return paginate(cursors, `${orgId}:heartbeats`, query,
        (after) => repo.page(store.db, orgId, query.limit, after), () => repo.count(store.db, orgId), toHeartbeat);
    },

    async update(orgId: string, actor: Actor, id: string, input: UpdateHeartbeatBody): Promise<Heartbeat> {
      await checkClient(orgId, input.clientId);
      const row = await store.db.transaction().execute(async (trx) => {
        const before = await repo.get(trx, orgId, id);
        if (!before) throw notFound('Heartbeat');
        const now = clock.now();
        const resuming = input.paused === false && before.paused === 1;
        const updated = await repo.update(trx, orgId, id, {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.intervalSeconds !== undefined && { interval_seconds: input.intervalSeconds }),
          ...(input.graceSeconds !== undefined && { grace_seconds: input.graceSeconds }),
          ...(input.severity !== undefined && { severity: input.severity }),
          ...(input.clientId !== undefined && { client_id: input.clientId }),
          ...(input.labels !== undefined && { labels: JSON.stringify(input.labels) }),
          ...(input.paused !== undefined && { paused: input.paused ? 1 : 0 }),
          updated_at: now,
        }, resuming ? now : null);
        if (!updated) throw notFound('Heartbeat');
        await audit.record(trx, { orgId, action: 'heartbeat.updated', actor, target: { type: 'heartbeat', id }, metadata: { changed: Object.keys(input) } });
        return updated;
      });
      return toHeartbeat(row);
    },

    /** A new ping token; the old one is refused from the next ping on, on every instance (nothing caches it). */
    async rotateToken(orgId: string, actor: Actor, id: string): Promise<HeartbeatWithToken> {
      const token = newPingToken();
      const row = await store.db.transaction().execute(async (trx) => {
        const updated = await repo.update(trx, orgId, id, { token_hash: hashKey(token), updated_at: clock.now() }, null);
        if (!updated) throw notFound('Heartbeat');
        await audit.record(trx, { orgId, action: 'heartbeat.token_rotated', actor, target: { type: 'heartbeat', id } });
        return updated;
      });
      return withToken(row, token);
    },

    /** Deletes the heartbeat and resolves its open alert, if any: nothing would ever ping it resolved. */
    async remove(orgId: string, actor: Actor, id: string): Promise<void> {
      const org = await ingest.orgConfig(orgId);
      await store.db.transaction().execute(async (trx) => {
        const row = await repo.remove(trx, orgId, id);
        if (!row) throw notFound('Heartbeat');
        await ingest.writeIn(trx, senderOf(row), org, [resolvedAlert(row.id)]);
        await audit.record(trx, { orgId, action: 'heartbeat.deleted', actor, target: { type: 'heartbeat', id }, metadata: { name: row.name } });
      });
    },

    /** The heartbeat a ping token belongs to, or null. Only the token's hash is looked up, never compared in code. */
    byToken: (token: string): Promise<HeartbeatRow | undefined> => repo.byTokenHash(store.db, hashKey(token)),

    /** Records a ping: the heartbeat is up again, and its open alert (if it was down) is resolved in the same transaction. */
    async ping(heartbeat: HeartbeatRow): Promise<{ state: Heartbeat['state']; lastPingAt: string; nextDueAt: string }> {
      const org = await ingest.orgConfig(heartbeat.org_id);
      const at = clock.now();
      const row = await store.db.transaction().execute(async (trx) => {
        const pinged = await repo.ping(trx, heartbeat.id, at);
        // Deleted since it was looked up: the token no longer works.
        if (!pinged) throw new AppError('UNAUTHORIZED', 'Invalid heartbeat token');
        await ingest.writeIn(trx, senderOf(pinged), org, [resolvedAlert(pinged.id)]);
        return pinged;
      });
      return { state: reportedState(row), lastPingAt: iso(at), nextDueAt: iso(Number(row.due_at)) };
    },

    checkDue,

    /** Looks for missed heartbeats every `everyMs` (worker roles); two instances doing so still raise one alert each. */
    startChecker: (everyMs: number): { stop(): Promise<void> } => periodic(everyMs, checkDue, log, 'heartbeat check failed'),
  };
}
export type HeartbeatsService = ReturnType<typeof heartbeatsService>;

import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { errorSummary } from '../../lib/logger.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AuditFilter, AuditRepo, AuditRow, NewAuditRow } from './audit-repo.ts';
import type { AuditEvent, AuditQuery } from './audit-schemas.ts';

export interface AuditInput {
  orgId: string;
  action: string;
  actor: Actor;
  target?: { type: string; id: string } | null;
  ip?: string | null;
  metadata?: Record<string, unknown>;
}

export interface KeyUse {
  orgId: string;
  keyId: string;
  method: string;
  path: string;
  status: number;
  ip: string;
}

const FLUSH_EVERY_MS = 1000;
const FLUSH_AT = 500;
/** If the store is unreachable for long, keep at most this many counters rather than grow without bound. */
const MAX_BUFFERED = 50_000;
const MINUTE = 60_000;

/**
 * The one `api_key.used` event that counts a use: the same for every use of the key in that minute with that
 * method, path, status and address, on every instance, so that their flushes add to one row.
 */
const keyUseId = (use: KeyUse, minute: number): string =>
  `aud_${createHash('sha256').update(JSON.stringify([use.orgId, use.keyId, minute, use.method, use.path, use.status, use.ip])).digest('base64url').slice(0, 24)}`;

export function auditService(deps: { store: Store; repo: AuditRepo; clock: Clock; cursors: CursorCodec; log: Logger }) {
  const { store, repo, clock, cursors, log } = deps;

  const toRow = (e: AuditInput, at: number): NewAuditRow => ({
    id: newId('aud'),
    org_id: e.orgId,
    action: e.action,
    actor_type: e.actor.type,
    actor_id: e.actor.id,
    target_type: e.target?.type ?? null,
    target_id: e.target?.id ?? null,
    ip: e.ip ?? null,
    metadata: JSON.stringify(e.metadata ?? {}),
    created_at: at,
  });

  const toEvent = (r: AuditRow): AuditEvent => ({
    id: r.id,
    action: r.action,
    actor: { type: r.actor_type as Actor['type'], id: r.actor_id },
    target: r.target_type && r.target_id ? { type: r.target_type, id: r.target_id } : null,
    ip: r.ip,
    metadata: r.action === 'api_key.used'
      ? { ...store.readJson<Record<string, unknown>>(r.metadata), uses: Number(r.uses) }
      : store.readJson<Record<string, unknown>>(r.metadata),
    createdAt: iso(r.created_at),
  });

  // Key use is counted in memory per minute (one counter per key, minute, method, path, status and address)
  // and flushed about once a second and on shutdown, with the keys' lastUsedAt: recording use adds no write
  // to a request, and the audit log holds a row per counter instead of one per request. A failed flush puts
  // its counts back, to be added by the next one.
  let buffer = new Map<string, NewAuditRow & { uses: number }>();
  let lastUsed = new Map<string, number>();
  let flushing: Promise<void> | null = null;
  const timer = setInterval(() => void flush(), FLUSH_EVERY_MS);
  timer.unref();

  const putBack = (rows: Map<string, NewAuditRow & { uses: number }>): void => {
    for (const [id, row] of rows) {
      const newer = buffer.get(id);
      if (newer) newer.uses += row.uses;
      else if (buffer.size < MAX_BUFFERED) buffer.set(id, row);
    }
  };

  async function flushOnce(): Promise<void> {
    if (buffer.size === 0) return;
    const rows = buffer;
    const used = lastUsed;
    buffer = new Map();
    lastUsed = new Map();
    try {
      await store.db.transaction().execute(async (trx) => {
        await repo.addUses(trx, [...rows.values()]);
        await repo.touchKeys(trx, used, store.dialect === 'postgres');
      });
    } catch (err) {
      log.error({ error: errorSummary(err) }, 'audit flush failed; will retry');
      putBack(rows);
      for (const [k, v] of used) if ((lastUsed.get(k) ?? 0) < v) lastUsed.set(k, v);
    }
  }

  /** Resolves once every event buffered before the call is written (a flush already running may predate some). */
  async function flush(): Promise<void> {
    while (flushing) await flushing;
    flushing = flushOnce().finally(() => { flushing = null; });
    return flushing;
  }

  return {
    /** Recorded with the change it describes, in the caller's transaction. */
    record: (db: Kysely<DB>, event: AuditInput) => repo.insertMany(db, [toRow(event, clock.now())]),

    recordKeyUse(use: KeyUse): void {
      const now = clock.now();
      const minute = Math.floor(now / MINUTE) * MINUTE;
      const id = keyUseId(use, minute);
      const counted = buffer.get(id);
      if (counted) counted.uses += 1;
      else if (buffer.size < MAX_BUFFERED) {
        buffer.set(id, {
          ...toRow({
            orgId: use.orgId,
            action: 'api_key.used',
            actor: { type: 'api_key', id: use.keyId },
            target: { type: 'api_key', id: use.keyId },
            ip: use.ip,
            metadata: { keyId: use.keyId, method: use.method, path: use.path, status: use.status, minute: iso(minute) },
          }, now),
          id,
          uses: 1,
        });
      }
      lastUsed.set(use.keyId, now);
      if (buffer.size >= FLUSH_AT) void flush();
    },

    flush,

    list(orgId: string, query: AuditQuery): Promise<Page<AuditEvent>> {
      const filter: AuditFilter = {
        action: query.action,
        actorType: query.actorType,
        actorId: query.actorId,
        from: query.from === undefined ? undefined : Date.parse(query.from),
        to: query.to === undefined ? undefined : Date.parse(query.to),
      };
      const page = { limit: query.limit ?? 25, cursor: query.cursor };
      // Filters are part of the cursor's scope: a cursor only continues the list it came from.
      return paginate(cursors, `${orgId}:audit:${JSON.stringify(filter)}`, page,
        (after) => repo.page(store.db, orgId, filter, page.limit, after), () => repo.count(store.db, orgId, filter), toEvent);
    },

    /** Stops the timer and writes what is still buffered; called on graceful shutdown. */
    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}
export type AuditService = ReturnType<typeof auditService>;

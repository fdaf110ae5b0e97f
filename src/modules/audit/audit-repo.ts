import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';

export type AuditRow = Selectable<DB['audit_events']>;
export type NewAuditRow = Insertable<DB['audit_events']>;

export interface AuditFilter {
  action?: string | undefined;
  actorType?: string | undefined;
  actorId?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}
/**
 * Rows per INSERT: a batch is written in chunks of these sizes only, so the store sees at most three
 * distinct statements (each prepared once and cached) instead of one per batch length.
 */
const CHUNKS = [100, 10, 1];

function* chunks<T>(rows: T[]): Generator<T[]> {
  let i = 0;
  for (const size of CHUNKS) {
    for (; rows.length - i >= size; i += size) yield rows.slice(i, i + size);
  }
}

export function auditRepo() {
  const scoped = (db: Kysely<DB>, orgId: string, f: AuditFilter) => {
    let q = db.selectFrom('audit_events').where('org_id', '=', orgId);
    if (f.action) q = q.where('action', '=', f.action);
    if (f.actorType) q = q.where('actor_type', '=', f.actorType);
    if (f.actorId) q = q.where('actor_id', '=', f.actorId);
    if (f.from !== undefined) q = q.where('created_at', '>=', f.from);
    if (f.to !== undefined) q = q.where('created_at', '<', f.to);
    return q;
  };
  return {
    async insertMany(db: Kysely<DB>, rows: NewAuditRow[]): Promise<void> {
      for (const chunk of chunks(rows)) await db.insertInto('audit_events').values(chunk).execute();
    },
    /**
     * Adds counted uses: a row another flush (of this or another instance) already wrote for the same id gets
     * these `uses` added. Rows go in id order so that two instances' flushes lock the rows they share in the
     * same order (PostgreSQL) and cannot deadlock.
     */
    async addUses(db: Kysely<DB>, rows: NewAuditRow[]): Promise<void> {
      const sorted = [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      for (const chunk of chunks(sorted)) {
        await db.insertInto('audit_events').values(chunk)
          .onConflict((oc) => oc.column('id').doUpdateSet({ uses: sql<number>`audit_events.uses + excluded.uses` })).execute();
      }
    },
    /**
     * Moves each key's lastUsedAt forward (never back: flushes of two instances may interleave). With `lock`
     * (PostgreSQL) the keys are first locked in id order, the order in which a revocation locks an
     * organization's keys: otherwise a flush and a revocation can each hold a key the other waits for, and the
     * deadlock fails the revocation.
     */
    async touchKeys(db: Kysely<DB>, lastUsed: ReadonlyMap<string, number>, lock: boolean): Promise<void> {
      if (lock && lastUsed.size > 0) {
        await db.selectFrom('api_keys').select('id').where('id', 'in', [...lastUsed.keys()]).orderBy('id').forUpdate().execute();
      }
      for (const [keyId, at] of lastUsed) {
        await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)])).execute();
      }
    },
    page: (db: Kysely<DB>, orgId: string, f: AuditFilter, limit: number, after: Keyset | null) =>
      keysetPage(scoped(db, orgId, f).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string, f: AuditFilter) => countRows(scoped(db, orgId, f)),
  };
}
export type AuditRepo = ReturnType<typeof auditRepo>;

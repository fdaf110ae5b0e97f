import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';

export type AuditRow = DB['audit_events'];
/** Rows per INSERT; keeps the statement well under SQLite's bound-parameter limit. */
const CHUNK = 200;

export function auditRepo() {
  const scoped = (db: Kysely<DB>, orgId: string, action: string | undefined) => {
    let q = db.selectFrom('audit_events').where('org_id', '=', orgId);
    if (action) q = q.where('action', '=', action);
    return q;
  };
  return {
    async insertMany(db: Kysely<DB>, rows: AuditRow[]): Promise<void> {
      for (let i = 0; i < rows.length; i += CHUNK) {
        await db.insertInto('audit_events').values(rows.slice(i, i + CHUNK)).execute();
      }
    },
    /** Moves each key's lastUsedAt forward (never back: flushes of two instances may interleave). */
    async touchKeys(db: Kysely<DB>, lastUsed: ReadonlyMap<string, number>): Promise<void> {
      for (const [keyId, at] of lastUsed) {
        await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)])).execute();
      }
    },
    page: (db: Kysely<DB>, orgId: string, action: string | undefined, limit: number, after: Keyset | null) =>
      keysetPage(scoped(db, orgId, action).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string, action: string | undefined) => countRows(scoped(db, orgId, action)),
  };
}
export type AuditRepo = ReturnType<typeof auditRepo>;

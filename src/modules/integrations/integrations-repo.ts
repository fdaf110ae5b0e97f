import { sql, type Kysely, type Updateable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';
import { bumpConfigVersion } from '../ingest/config-versions.ts';

export type IntegrationRow = DB['integrations'];
export type RejectionRow = DB['integration_rejections'];

/** Rejected payloads kept per integration: enough to diagnose a sender, bounded whatever it sends. */
export const REJECTIONS_KEPT = 50;

export interface CountDelta {
  accepted: number;
  rejected: number;
  lastAlertAt: number | null;
  lastRejectedAt: number | null;
}

/** The later of a column and a value (SQLite's max(a, b) is PostgreSQL's greatest(a, b); this reads the same in both). */
const later = (column: 'last_alert_at' | 'last_rejected_at', at: number) =>
  sql<number>`case when ${sql.ref(column)} is null or ${sql.ref(column)} < ${at} then ${at} else ${sql.ref(column)} end`;

export function integrationsRepo() {
  const scoped = (db: Kysely<DB>, orgId: string) => db.selectFrom('integrations').where('org_id', '=', orgId);
  const listed = (db: Kysely<DB>, orgId: string, clientId: string | undefined) => {
    const q = scoped(db, orgId);
    return clientId === undefined ? q : q.where('client_id', '=', clientId);
  };
  const rejectionsOf = (db: Kysely<DB>, orgId: string, integrationId: string) =>
    db.selectFrom('integration_rejections').where('org_id', '=', orgId).where('integration_id', '=', integrationId);
  return {
    insert: (db: Kysely<DB>, row: IntegrationRow) => db.insertInto('integrations').values(row).execute(),
    get: (db: Kysely<DB>, orgId: string, id: string) => scoped(db, orgId).selectAll().where('id', '=', id).executeTakeFirst(),
    page: (db: Kysely<DB>, orgId: string, clientId: string | undefined, limit: number, after: Keyset | null) =>
      keysetPage(listed(db, orgId, clientId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string, clientId: string | undefined) => countRows(listed(db, orgId, clientId)),
    /** Any change of an integration (token, keys, enabled, mapping, client…) invalidates ingest's caches. */
    async update(db: Kysely<DB>, orgId: string, id: string, changes: Updateable<IntegrationRow>): Promise<IntegrationRow | undefined> {
      const row = await db.updateTable('integrations').set(changes).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst();
      if (row) await bumpConfigVersion(db, orgId);
      return row;
    },
    /** Adds counts gathered since the last flush; instances add their own deltas, so none overwrites another. */
    addCounts: (db: Kysely<DB>, id: string, d: CountDelta) =>
      db.updateTable('integrations')
        .set((eb) => ({
          accepted_count: eb('accepted_count', '+', d.accepted),
          rejected_count: eb('rejected_count', '+', d.rejected),
          ...(d.lastAlertAt !== null && { last_alert_at: later('last_alert_at', d.lastAlertAt) }),
          ...(d.lastRejectedAt !== null && { last_rejected_at: later('last_rejected_at', d.lastRejectedAt) }),
        }))
        .where('id', '=', id).execute(),
    /** Records a rejection and drops the oldest beyond REJECTIONS_KEPT. */
    async addRejection(db: Kysely<DB>, row: RejectionRow): Promise<void> {
      await db.insertInto('integration_rejections').values(row).execute();
      const keep = db.selectFrom('integration_rejections').select('id').where('integration_id', '=', row.integration_id)
        .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(REJECTIONS_KEPT);
      await db.deleteFrom('integration_rejections').where('integration_id', '=', row.integration_id).where('id', 'not in', keep).execute();
    },
    rejectionsPage: (db: Kysely<DB>, orgId: string, integrationId: string, limit: number, after: Keyset | null) =>
      keysetPage(rejectionsOf(db, orgId, integrationId).selectAll(), limit, after).execute(),
    rejectionsCount: (db: Kysely<DB>, orgId: string, integrationId: string) => countRows(rejectionsOf(db, orgId, integrationId)),
    remove: async (db: Kysely<DB>, orgId: string, id: string): Promise<boolean> => {
      await db.deleteFrom('integration_rejections').where('org_id', '=', orgId).where('integration_id', '=', id).execute();
      const r = await db.deleteFrom('integrations').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) return false;
      await bumpConfigVersion(db, orgId);
      return true;
    },
  };
}
export type IntegrationsRepo = ReturnType<typeof integrationsRepo>;

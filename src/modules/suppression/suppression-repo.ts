import { conditionSubject, OPEN_STATUSES, SUBJECT_COLUMNS } from '../alerts/alerts-fns.ts';
import { sql, type Kysely, type NotNull, type Updateable } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { ConditionLeaf, ConditionSubject } from '../../lib/conditions.ts';
import type { Keyset } from '../../lib/pagination.ts';
import { bumpConfigVersion } from '../ingest/config-versions.ts';
import type { SuppressionWindow } from './suppression-fns.ts';

export type SuppressionRow = DB['suppression_windows'];

/** A suppressed alert as the sweeper needs it: what matchers read, and which window holds it. */
export interface HeldAlert extends ConditionSubject {
  id: string;
  suppressionId: string;
}

/**
 * The predicate of the partial index `alerts_suppressed_by`, as literal SQL: SQLite uses a partial index
 * only when the query's WHERE has its terms literally, which a bound parameter never does.
 */
const SUPPRESSED = sql<boolean>`status = 'suppressed'`;

export function suppressionRepo(store: Store) {
  const scoped = (db: Kysely<DB>, orgId: string) => db.selectFrom('suppression_windows').where('org_id', '=', orgId);
  const listed = (db: Kysely<DB>, orgId: string, clientId: string | undefined) => {
    const q = scoped(db, orgId);
    return clientId === undefined ? q : q.where('client_id', '=', clientId);
  };
  const toWindow = (r: SuppressionRow): SuppressionWindow => ({
    id: r.id,
    startsAt: r.starts_at,
    endsAt: r.ends_at,
    timezone: r.timezone,
    recurrence: r.recurrence,
    matchers: store.readJson<ConditionLeaf[]>(r.matchers),
    clientId: r.client_id,
  });

  return {
    toWindow,
    // Every write of a window invalidates ingest's caches (it suppresses new alerts as they arrive).
    async insert(db: Kysely<DB>, row: SuppressionRow): Promise<void> {
      await db.insertInto('suppression_windows').values(row).execute();
      await bumpConfigVersion(db, row.org_id);
    },
    get: (db: Kysely<DB>, orgId: string, id: string) => scoped(db, orgId).selectAll().where('id', '=', id).executeTakeFirst(),
    page: (db: Kysely<DB>, orgId: string, clientId: string | undefined, limit: number, after: Keyset | null) =>
      keysetPage(listed(db, orgId, clientId).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string, clientId: string | undefined) => countRows(listed(db, orgId, clientId)),
    async update(db: Kysely<DB>, orgId: string, id: string, changes: Updateable<SuppressionRow>): Promise<SuppressionRow | undefined> {
      const row = await db.updateTable('suppression_windows').set(changes).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst();
      if (row) await bumpConfigVersion(db, orgId);
      return row;
    },
    remove: async (db: Kysely<DB>, orgId: string, id: string): Promise<boolean> => {
      const r = await db.deleteFrom('suppression_windows').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) return false;
      await bumpConfigVersion(db, orgId);
      return true;
    },
    clientExists: async (db: Kysely<DB>, orgId: string, clientId: string): Promise<boolean> =>
      (await db.selectFrom('clients').select('id').where('org_id', '=', orgId).where('id', '=', clientId).executeTakeFirst()) !== undefined,

    /**
     * The organization's windows that can be in force at `at`: begun by then, and recurring or not yet
     * ended. Oldest first, so that the window chosen among several is stable.
     */
    forOrg: async (db: Kysely<DB>, orgId: string, at: number): Promise<SuppressionWindow[]> => {
      const rows = await scoped(db, orgId).selectAll().where('starts_at', '<=', at)
        .where((eb) => eb.or([eb('recurrence', 'is not', null), eb('ends_at', '>', at)]))
        .orderBy('created_at').orderBy('id').execute();
      return rows.map(toWindow);
    },
    /** The organization's windows not ended at `at` (recurring ones never end), begun or not: what ingest caches. */
    notEnded: async (db: Kysely<DB>, orgId: string, at: number): Promise<SuppressionWindow[]> => {
      const rows = await scoped(db, orgId).selectAll()
        .where((eb) => eb.or([eb('recurrence', 'is not', null), eb('ends_at', '>', at)]))
        .orderBy('created_at').orderBy('id').execute();
      return rows.map(toWindow);
    },
    byIds: async (db: Kysely<DB>, ids: string[]): Promise<SuppressionWindow[]> =>
      ids.length === 0 ? [] : (await db.selectFrom('suppression_windows').selectAll().where('id', 'in', ids).execute()).map(toWindow),

    /**
     * Which windows hold suppressed alerts, per organization. Ordered by window so that SQLite, too, reads the
     * small partial index `alerts_suppressed_by` rather than scanning an index of every alert.
     */
    holders: (db: Kysely<DB>) =>
      db.selectFrom('alerts').select(['org_id', 'suppression_id']).distinct()
        .where(SUPPRESSED).where('suppression_id', 'is not', null)
        .orderBy('suppression_id')
        .$narrowType<{ suppression_id: NotNull }>()
        .execute(),

    /** The newest open alerts (of one client, when given) as matchers read them, with when each was created. */
    async openAlerts(db: Kysely<DB>, orgId: string, clientId: string | null, limit: number): Promise<Array<ConditionSubject & { id: string; createdAt: number }>> {
      let q = db.selectFrom('alerts').select([...SUBJECT_COLUMNS, 'created_at'])
        .where('org_id', '=', orgId).where('status', 'in', [...OPEN_STATUSES]);
      if (clientId !== null) q = q.where('client_id', '=', clientId);
      const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map((r) => ({ ...conditionSubject(store, r), createdAt: r.created_at }));
    },

    /** The suppressed alerts a window holds. */
    async heldBy(db: Kysely<DB>, orgId: string, windowId: string): Promise<HeldAlert[]> {
      const rows = await db.selectFrom('alerts')
        .select([...SUBJECT_COLUMNS])
        .where('suppression_id', '=', windowId).where(SUPPRESSED).where('org_id', '=', orgId)
        .execute();
      return rows.map((r) => ({ ...conditionSubject(store, r), suppressionId: windowId }));
    },

  };
}
export type SuppressionRepo = ReturnType<typeof suppressionRepo>;

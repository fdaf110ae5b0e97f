import { sql, type Kysely, type RawBuilder, type Updateable } from 'kysely';
import { OPEN_STATUSES, SEVERITIES } from '../alerts/alerts-fns.ts';
import type { DB } from '../../db/schema.ts';
import { countRows, keysetPage } from '../../db/keyset.ts';
import type { Keyset } from '../../lib/pagination.ts';
import type { LiveChange, LiveFeed } from '../live/live-feed.ts';
import { MAX_DETAIL_ITEMS, OPEN_INCIDENT_STATUSES } from './incidents-schemas.ts';

export type IncidentRow = DB['incidents'];
export type IncidentEventRow = DB['incident_events'];

export interface IncidentFilter {
  status?: string[];
  assigneeId?: string;
  clientId?: string;
  /** A member: the incidents assigned to them or that paged them. */
  mine?: string;
}

/** A severity's rank in SQL, critical first (the order of SEVERITIES). */
const rank = (value: RawBuilder<unknown>) =>
  sql`case ${value} ${sql.join(SEVERITIES.map((v, i) => sql`when ${sql.lit(v)} then ${sql.lit(i)}`), sql` `)} else ${sql.lit(SEVERITIES.length)} end`;

/** The columns whose change the dashboard's live stream announces. */
const WATCHED: ReadonlyArray<keyof IncidentRow> = ['status', 'assignee_id', 'alert_count', 'severity'];

const liveChange = (r: Pick<IncidentRow, 'id' | 'org_id' | 'status' | 'severity' | 'title' | 'updated_at'>, type: 'incident.created' | 'incident.updated'): LiveChange =>
  ({ orgId: r.org_id, type, id: r.id, status: r.status, severity: r.severity, title: r.title, at: r.updated_at });

/** Incidents' one writer: every write also feeds the live stream, in the same transaction. */
export function incidentsRepo(deps: { live: Pick<LiveFeed, 'record'> }) {
  const { live } = deps;
  const filtered = (db: Kysely<DB>, orgId: string, f: IncidentFilter) => {
    let q = db.selectFrom('incidents').where('org_id', '=', orgId);
    if (f.status?.length) q = q.where('status', 'in', f.status);
    if (f.assigneeId !== undefined) q = q.where('assignee_id', '=', f.assigneeId);
    if (f.clientId !== undefined) q = q.where('client_id', '=', f.clientId);
    const me = f.mine;
    if (me !== undefined) {
      // A page to the member is a notification of the incident naming them (notifications_incident index per incident).
      q = q.where((eb) => eb.or([
        eb('assignee_id', '=', me),
        eb.exists(eb.selectFrom('notifications').select('notifications.id')
          .whereRef('notifications.incident_id', '=', 'incidents.id').where('notifications.recipient_id', '=', me)),
      ]));
    }
    return q;
  };
  return {
    page: (db: Kysely<DB>, orgId: string, f: IncidentFilter, limit: number, after: Keyset | null) =>
      keysetPage(filtered(db, orgId, f).selectAll(), limit, after).execute(),
    count: (db: Kysely<DB>, orgId: string, f: IncidentFilter) => countRows(filtered(db, orgId, f)),
    get: (db: Kysely<DB>, orgId: string, id: string) =>
      db.selectFrom('incidents').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst(),
    findOpen: (db: Kysely<DB>, workflowId: string, groupKey: string) =>
      db.selectFrom('incidents').selectAll().where('workflow_id', '=', workflowId).where('group_key', '=', groupKey)
        .where('status', 'in', [...OPEN_INCIDENT_STATUSES]).executeTakeFirst(),
    /**
     * Locks the organization's incident counter (creating it at 0) and returns its value: whoever holds it
     * is the only one opening an incident in the organization, so numbers have no gaps and no duplicates.
     * The lock is taken under a savepoint: `letGo` rolls back to it, which releases the lock at once (a row
     * lock is otherwise held to the end of the transaction), for a caller that found, once it held the lock,
     * that it has nothing to open.
     */
    async lockCounter(db: Kysely<DB>, orgId: string): Promise<{ last: number; letGo(): Promise<void> }> {
      await sql`savepoint incident_counter`.execute(db);
      const r = await db.insertInto('incident_counters').values({ org_id: orgId, last_number: 0 })
        .onConflict((oc) => oc.column('org_id').doUpdateSet({ last_number: sql<number>`incident_counters.last_number` }))
        .returning('last_number').executeTakeFirstOrThrow();
      return {
        last: Number(r.last_number),
        letGo: async () => void (await sql`rollback to savepoint incident_counter`.execute(db)),
      };
    },
    setCounter: (db: Kysely<DB>, orgId: string, n: number) =>
      db.updateTable('incident_counters').set({ last_number: n }).where('org_id', '=', orgId).execute(),
    async insert(db: Kysely<DB>, row: IncidentRow): Promise<void> {
      await db.insertInto('incidents').values(row).execute();
      await live.record(db, [liveChange(row, 'incident.created')]);
    },
    async update(db: Kysely<DB>, orgId: string, id: string, changes: Updateable<IncidentRow>): Promise<IncidentRow | undefined> {
      const row = await db.updateTable('incidents').set(changes).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst();
      if (row && WATCHED.some((k) => k in changes)) await live.record(db, [liveChange(row, 'incident.updated')]);
      return row;
    },
    /**
     * Counts an alert that just joined into the incident. The count and the worst severity are computed in the
     * statement, so alerts joining at the same moment lose no update.
     */
    /** Counts an alert joining the incident; returns the incident as it now is. */
    async countAlert(db: Kysely<DB>, incident: IncidentRow, severity: string, at: number): Promise<IncidentRow> {
      const row = await db.updateTable('incidents')
        .set((eb) => ({
          alert_count: eb('alert_count', '+', 1),
          severity: sql<string>`case when ${rank(sql`${severity}`)} < ${rank(sql.ref('severity'))} then ${severity} else severity end`,
          updated_at: at,
        }))
        .where('id', '=', incident.id).returningAll().executeTakeFirstOrThrow();
      await live.record(db, [liveChange(row, 'incident.updated')]);
      return row;
    },
    /** The distinct severities of the incident's alerts. */
    alertSeverities: async (db: Kysely<DB>, incidentId: string): Promise<string[]> =>
      (await db.selectFrom('alerts').select('severity').distinct().where('incident_id', '=', incidentId).execute()).map((r) => r.severity),
    /** How many of the incident's alerts are open, and how many of those are firing. */
    async openAlertCounts(db: Kysely<DB>, incidentId: string): Promise<{ open: number; firing: number }> {
      const rows = await db.selectFrom('alerts').select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('incident_id', '=', incidentId).where('status', 'in', [...OPEN_STATUSES]).groupBy('status').execute();
      const n = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
      return { open: rows.reduce((sum, r) => sum + Number(r.n), 0), firing: n('firing') };
    },
    alerts: (db: Kysely<DB>, orgId: string, incidentId: string) =>
      db.selectFrom('alerts').select(['id', 'title', 'severity', 'status', 'fingerprint', 'created_at'])
        .where('org_id', '=', orgId).where('incident_id', '=', incidentId)
        .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(MAX_DETAIL_ITEMS).execute(),
    addEvent: (db: Kysely<DB>, row: IncidentEventRow) => db.insertInto('incident_events').values(row).execute(),
    async timeline(db: Kysely<DB>, orgId: string, incidentId: string): Promise<IncidentEventRow[]> {
      const newest = await db.selectFrom('incident_events').selectAll().where('org_id', '=', orgId).where('incident_id', '=', incidentId)
        .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(MAX_DETAIL_ITEMS).execute();
      return newest.reverse();
    },
    assignedTo: (db: Kysely<DB>, orgId: string, userId: string) =>
      db.selectFrom('incidents').selectAll().where('org_id', '=', orgId).where('assignee_id', '=', userId).execute(),
    userExists: async (db: Kysely<DB>, orgId: string, userId: string): Promise<boolean> =>
      (await db.selectFrom('users').select('id').where('org_id', '=', orgId).where('id', '=', userId).executeTakeFirst()) !== undefined,
  };
}
export type IncidentsRepo = ReturnType<typeof incidentsRepo>;

import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

/** The additive measures every counting rollup holds (see src/modules/analytics/analytics-fns.ts). */
const MEASURES = ['alerts', 'occurrences', 'quick_resolves', 'incidents', 'pages', 'flaps'] as const;

const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      // The zone an organization's days, weeks and months are counted in (analytics, client reports); a member's
      // own zone (null: the organization's) decides whether a page woke them at night.
      await db.schema.alterTable('orgs').addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC')).execute();
      // The label keys analytics can group by; only these are rolled up (a key like `instance` would make a row per host).
      await db.schema.alterTable('orgs').addColumn('analytics_labels', 'text', (c) => c.notNull().defaultTo('["service"]')).execute();
      await db.schema.alterTable('users').addColumn('timezone', 'text').execute();
      await db.schema.alterTable('clients').addColumn('report_recipients', 'text', (c) => c.notNull().defaultTo('[]')).execute();

      // Counts per UTC hour and per local day (in the organization's zone when counted), one row per dimension value:
      // `dim` is severity, client, integration or label:<key>; `key` its value ('' for none), so each dimension's
      // rows add up to the organization's total.
      for (const [table, time] of [['analytics_hourly', 'hour'], ['analytics_daily', 'day']] as const) {
        let create = db.schema.createTable(table)
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn('dim', 'text', (c) => c.notNull())
          .addColumn(time, t.ts, (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull());
        for (const m of MEASURES) create = create.addColumn(m, 'integer', (c) => c.notNull().defaultTo(0));
        await create.addPrimaryKeyConstraint(`${table}_pk`, ['org_id', 'dim', time, 'key']).execute();
      }

      // Per alert (integration and fingerprint) and local day: what the top-noisy lists rank.
      let noisy = db.schema.createTable('analytics_noisy')
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('day', t.ts, (c) => c.notNull())
        .addColumn('integration_id', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull());
      for (const m of MEASURES) noisy = noisy.addColumn(m, 'integer', (c) => c.notNull().defaultTo(0));
      await noisy.addPrimaryKeyConstraint('analytics_noisy_pk', ['org_id', 'day', 'integration_id', 'fingerprint']).execute();
      await db.schema.createIndex('analytics_noisy_client').on('analytics_noisy').columns(['org_id', 'client_id', 'day']).execute();

      // Pages per person and local day, split by the person's own working hours.
      await db.schema.createTable('analytics_pages')
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('day', t.ts, (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('working', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('off_hours', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('analytics_pages_pk', ['org_id', 'day', 'user_id', 'client_id'])
        .execute();

      // One row per incident, written when it opens, with its dimensions frozen then; the first acknowledgement,
      // resolution and page each fill their duration once. Percentiles need the values, not sums.
      await db.schema.createTable('analytics_incidents')
        .addColumn('incident_id', 'text', (c) => c.primaryKey())
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('opened_at', t.ts, (c) => c.notNull())
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('integration_id', 'text', (c) => c.notNull())
        .addColumn('labels', t.json, (c) => c.notNull())
        .addColumn('ack_ms', t.ts)
        .addColumn('resolve_ms', t.ts)
        .addColumn('page_ms', t.ts)
        .execute();
      await db.schema.createIndex('analytics_incidents_org_opened').on('analytics_incidents').columns(['org_id', 'opened_at']).execute();

      // The client board counts open incidents per client without reading the closed ones.
      await sql`create index incidents_open_client on incidents (org_id, client_id) where status in ('triggered', 'acknowledged')`.execute(db);
      // A client report's availability reads the client's critical alerts only.
      await sql`create index alerts_critical_client on alerts (org_id, client_id, created_at) where severity = 'critical' and client_id is not null`.execute(db);

      // One row per (client, month, recipient): the primary key is what makes a monthly report go once, however
      // many instances look at the first of the month.
      await db.schema.createTable('client_report_sends')
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', t.ts, (c) => c.notNull())
        .addColumn('updated_at', t.ts, (c) => c.notNull())
        .addPrimaryKeyConstraint('client_report_sends_pk', ['org_id', 'client_id', 'period', 'recipient'])
        .execute();
    },
  };
};
export default migration;

import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

const MEASURES = ['alerts', 'occurrences', 'quick_resolves', 'incidents', 'pages', 'flaps'] as const;

/**
 * The noisy-alert counts of migration 0022, per local day and now also per local month (a year's top list reads 12
 * months of rows instead of 365 days of them: bench/analytics.ts), and keyed by client too: one fingerprint can be
 * sent for several clients, and a client's report must count only its own. The daily rows move to the new table.
 */
const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      for (const [table, time] of [['analytics_noisy_daily', 'day'], ['analytics_noisy_monthly', 'month']] as const) {
        let create = db.schema.createTable(table)
          .addColumn('org_id', 'text', (c) => c.notNull())
          .addColumn(time, t.ts, (c) => c.notNull())
          .addColumn('integration_id', 'text', (c) => c.notNull())
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('client_id', 'text', (c) => c.notNull())
          .addColumn('title', 'text', (c) => c.notNull());
        for (const m of MEASURES) create = create.addColumn(m, 'integer', (c) => c.notNull().defaultTo(0));
        await create.addPrimaryKeyConstraint(`${table}_pk`, ['org_id', time, 'integration_id', 'fingerprint', 'client_id']).execute();
        await db.schema.createIndex(`${table}_client`).on(table).columns(['org_id', 'client_id', time]).execute();
      }
      const columns = ['org_id', 'day', 'integration_id', 'fingerprint', 'client_id', 'title', ...MEASURES].join(', ');
      await sql.raw(`insert into analytics_noisy_daily (${columns}) select ${columns} from analytics_noisy`).execute(db);
      await db.schema.dropTable('analytics_noisy').execute();
    },
  };
};
export default migration;

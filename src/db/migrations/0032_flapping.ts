import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './types.ts';

/**
 * Flap detection (docs/paging.md, "Flapping alerts"): each integration's rule (how many changes within how many
 * seconds make an alert flap, and how long it must stay unchanged to stop), each fingerprint's recent changes
 * and flapping state (`alert_flaps`, written by the alert writer), and the mark on the alerts written while it
 * flaps.
 */
const migration: MigrationFactory = (dialect) => {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('integrations').addColumn('flap_threshold', 'integer', (c) => c.notNull().defaultTo(5)).execute();
      await db.schema.alterTable('integrations').addColumn('flap_window_seconds', 'integer', (c) => c.notNull().defaultTo(1800)).execute();
      await db.schema.alterTable('integrations').addColumn('flap_stable_seconds', 'integer', (c) => c.notNull().defaultTo(1800)).execute();
      await db.schema.alterTable('alerts').addColumn('flapping', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.createTable('alert_flaps')
        .addColumn('org_id', 'text', (c) => c.notNull())
        .addColumn('integration_id', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        // The instants of the changes still inside the integration's window (a JSON array of milliseconds).
        .addColumn('changes', 'text', (c) => c.notNull())
        .addColumn('flapping', 'integer', (c) => c.notNull())
        // When the current (or last) flapping started: its notices go to those paged about the alerts before it.
        .addColumn('since', t.ts)
        .addColumn('last_change_at', t.ts, (c) => c.notNull())
        .addPrimaryKeyConstraint('alert_flaps_pk', ['org_id', 'integration_id', 'fingerprint'])
        .execute();
      // The sweep that ends flapping reads only the flapping ones.
      await db.schema.createIndex('alert_flaps_flapping').on('alert_flaps').columns(['flapping', 'last_change_at']).execute();
      // Partial: the few flapping alerts, listed newest first; alerts that do not flap (nearly all) cost ingest nothing here.
      await db.schema.createIndex('alerts_flapping').on('alerts').columns(['org_id', 'created_at']).where(sql.ref('flapping'), '=', 1).execute();
    },
  };
};
export default migration;

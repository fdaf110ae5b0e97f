import { Migrator, type Migration } from 'kysely/migration';
import type { StoreConfig } from '../../config.ts';
import { createStore, type Dialect, type Store } from '../database.ts';
import { isSqliteBusy } from '../sqlite-database.ts';
import m0001 from './0001_core.ts';
import m0002 from './0002_integrations_clients_suppression.ts';
import m0003 from './0003_oncall_workflows_incidents.ts';
import m0004 from './0004_sessions.ts';
import m0005 from './0005_fair_jobs.ts';
import m0008 from './0008_config_versions.ts';
import m0009 from './0009_password_links.ts';
import m0012 from './0012_heartbeats.ts';
import m0013 from './0013_live_events.ts';
import m0014 from './0014_escalations.ts';
import m0015 from './0015_contact_methods.ts';
import m0016 from './0016_handoff_notices.ts';
import m0017 from './0017_alert_fingerprint_indexes.ts';
import m0018 from './0018_new_alert_writes.ts';
import m0019 from './0019_integration_vendor_keys.ts';
import m0020 from './0020_import_links.ts';
import m0021 from './0021_config_and_incident_events_in_code.ts';
import m0022 from './0022_analytics.ts';
import m0023 from './0023_opsgenie_requests.ts';
import m0024 from './0024_channel_deliveries.ts';
import m0025 from './0025_analytics_monthly_noise.ts';
import m0026 from './0026_alert_writes_in_code.ts';
import m0027 from './0027_incident_actions.ts';
import m0028 from './0028_channel_answers.ts';
import m0029 from './0029_calendar_feeds.ts';
import m0030 from './0030_channel_settings.ts';
import m0031 from './0031_key_use_per_minute.ts';
import m0032 from './0032_flapping.ts';
import m0033 from './0033_jobs_claim_order.ts';
import m0034 from './0034_jobs_claim_groups.ts';
import m0035 from './0035_jobs_due_groups.ts';
import type { MigrationFactory } from './types.ts';

/**
 * Numbered, forward-only migrations, one file each, applied in this order. Never edit one that has shipped;
 * add the next number (a file and a line here).
 */
const MIGRATIONS: ReadonlyArray<readonly [string, MigrationFactory]> = [
  ['0001_core', m0001],
  ['0002_integrations_clients_suppression', m0002],
  ['0003_oncall_workflows_incidents', m0003],
  ['0004_sessions', m0004],
  ['0005_fair_jobs', m0005],
  ['0008_config_versions', m0008],
  ['0009_password_links', m0009],
  ['0012_heartbeats', m0012],
  ['0013_live_events', m0013],
  ['0014_escalations', m0014],
  ['0015_contact_methods', m0015],
  ['0016_handoff_notices', m0016],
  ['0017_alert_fingerprint_indexes', m0017],
  ['0018_new_alert_writes', m0018],
  ['0019_integration_vendor_keys', m0019],
  ['0020_import_links', m0020],
  ['0021_config_and_incident_events_in_code', m0021],
  ['0022_analytics', m0022],
  ['0023_opsgenie_requests', m0023],
  ['0024_channel_deliveries', m0024],
  ['0025_analytics_monthly_noise', m0025],
  ['0026_alert_writes_in_code', m0026],
  ['0027_incident_actions', m0027],
  ['0028_channel_answers', m0028],
  ['0029_calendar_feeds', m0029],
  ['0030_channel_settings', m0030],
  ['0031_key_use_per_minute', m0031],
  ['0032_flapping', m0032],
  ['0033_jobs_claim_order', m0033],
  ['0034_jobs_claim_groups', m0034],
  ['0035_jobs_due_groups', m0035],
];

function migrations(dialect: Dialect): Record<string, Migration> {
  return Object.fromEntries(MIGRATIONS.map(([name, factory]) => [name, factory(dialect)]));
}

/** Brings the store to the latest migration, or to `upTo` (a migration's name: how tests build an older database). */
export async function migrate(store: Store, upTo?: string): Promise<string[]> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations(store.dialect) },
  });
  const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

const START_ATTEMPTS = 20;

/**
 * Opens the store and brings it to the latest migration. Processes that open one fresh SQLite file at the
 * same moment (two instances, or the CLI beside a starting server) can meet SQLITE_BUSY_SNAPSHOT, which
 * SQLite reports at once instead of waiting: the losing process closes, waits a moment and starts again.
 */
export async function openMigratedStore(config: StoreConfig): Promise<{ store: Store; applied: string[] }> {
  for (let attempt = 1; ; attempt++) {
    const store = await createStore(config);
    try {
      return { store, applied: await migrate(store) };
    } catch (err) {
      await store.close().catch(() => undefined);
      if (!isSqliteBusy(err) || attempt >= START_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 25 + Math.random() * 100));
    }
  }
}

import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export type OpsgenieRequestRow = DB['opsgenie_requests'];

/** How long a request's outcome can be asked for. */
export const REQUESTS_KEPT_MS = 24 * 3_600_000;

export function inboundRepo() {
  return {
    /** Records an outcome, and forgets the integration's outcomes older than REQUESTS_KEPT_MS. */
    async addRequest(db: Kysely<DB>, row: OpsgenieRequestRow): Promise<void> {
      await db.insertInto('opsgenie_requests').values(row).execute();
      await db.deleteFrom('opsgenie_requests').where('integration_id', '=', row.integration_id)
        .where('processed_at', '<', row.processed_at - REQUESTS_KEPT_MS).execute();
    },
    request: (db: Kysely<DB>, orgId: string, integrationId: string, id: string) =>
      db.selectFrom('opsgenie_requests').selectAll().where('org_id', '=', orgId).where('integration_id', '=', integrationId).where('id', '=', id).executeTakeFirst(),
  };
}
export type InboundRepo = ReturnType<typeof inboundRepo>;

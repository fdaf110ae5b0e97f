import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

/**
 * What ingest caches per organization (integrations by token, suppression windows, client slugs; see
 * ingest-cache.ts) is valid while the organization's row in `config_versions` keeps its number. Every write
 * of those tables calls this in its own transaction, so the next request on any instance or process reads
 * the new number and reloads. (A new integration needs none: an unknown token is never cached.)
 */
export async function bumpConfigVersion(db: Kysely<DB>, orgId: string): Promise<void> {
  await db.insertInto('config_versions').values({ org_id: orgId, version: 1 })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ version: sql<number>`config_versions.version + 1` }))
    .execute();
}

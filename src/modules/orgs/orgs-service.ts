import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { inTransaction } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { SCOPES } from '../api-keys/api-keys-fns.ts';
import type { ApiKeysService } from '../api-keys/api-keys-service.ts';
import type { User } from '../users/users-schemas.ts';
import type { UsersService } from '../users/users-service.ts';
import type { Actor } from '../../lib/actor.ts';
import { invalid, notFound } from '../../lib/errors.ts';
import type { AuditService } from '../audit/audit-service.ts';
import { isValidTimezone } from '../suppression/recurrence-fns.ts';
import type { OrgsRepo } from './orgs-repo.ts';
import type { OrgSettings, UpdateOrgBody } from './orgs-schemas.ts';

export interface CreatedOrg {
  org: { id: string; name: string };
  owner: { id: string; email: string };
  apiKey: string;
}

export interface OwnedOrgInput {
  name: string;
  ownerEmail?: string | undefined;
  ownerName?: string | undefined;
  ownerPassword?: string | undefined;
}

const toSettings = (r: { id: string; name: string; timezone: string; analytics_labels: string }): OrgSettings => ({
  id: r.id, name: r.name, timezone: r.timezone, analyticsLabels: JSON.parse(r.analytics_labels) as string[],
});

export function orgsService(deps: { store: Store; repo: OrgsRepo; users: UsersService; apiKeys: ApiKeysService; audit: AuditService; clock: Clock }) {
  const { store, repo, users, apiKeys, audit, clock } = deps;
  /** An organization and its owner, in the caller's transaction. */
  async function withOwner(db: Kysely<DB>, input: OwnedOrgInput): Promise<{ org: { id: string; name: string }; owner: User }> {
    const org = { id: newId('org'), name: input.name, created_at: clock.now() };
    await repo.insert(db, org);
    const owner = await users.add(org.id, { email: input.ownerEmail ?? 'owner@localhost', name: input.ownerName ?? 'Owner', role: 'owner', password: input.ownerPassword }, db);
    return { org: { id: org.id, name: org.name }, owner };
  }

  return {
    /** An organization, its owner and an API key holding every scope, all or nothing. */
    create(input: OwnedOrgInput): Promise<CreatedOrg> {
      return inTransaction(store.db, async (trx) => {
        const { org, owner } = await withOwner(trx, input);
        const key = await apiKeys.create(org.id, { type: 'user', id: owner.id }, { name: 'Owner key (CLI)', scopes: [...SCOPES] }, null, trx);
        return { org, owner: { id: owner.id, email: owner.email }, apiKey: key.key };
      });
    },
    withOwner,

    async settings(orgId: string): Promise<OrgSettings> {
      const row = await repo.settings(store.db, orgId);
      if (!row) throw notFound('Organization');
      return toSettings(row);
    },

    async updateSettings(orgId: string, actor: Actor, input: UpdateOrgBody): Promise<OrgSettings> {
      if (input.timezone !== undefined && !isValidTimezone(input.timezone)) throw invalid('/timezone', 'must be an IANA time zone such as Europe/Berlin or UTC');
      const row = await inTransaction(store.db, async (trx) => {
        const updated = await repo.update(trx, orgId, {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.timezone !== undefined && { timezone: input.timezone }),
          ...(input.analyticsLabels !== undefined && { analytics_labels: JSON.stringify(input.analyticsLabels) }),
        });
        if (!updated) throw notFound('Organization');
        await audit.record(trx, { orgId, action: 'organization.updated', actor, target: { type: 'organization', id: orgId }, metadata: { ...input } });
        return updated;
      });
      return toSettings(row);
    },
    exists: (id: string) => repo.exists(store.db, id),
    count: (db: Kysely<DB> = store.db) => repo.count(db),
  };
}
export type OrgsService = ReturnType<typeof orgsService>;

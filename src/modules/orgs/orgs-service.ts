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
import type { OrgsRepo } from './orgs-repo.ts';

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

export function orgsService(deps: { store: Store; repo: OrgsRepo; users: UsersService; apiKeys: ApiKeysService; clock: Clock }) {
  const { store, repo, users, apiKeys, clock } = deps;
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
    exists: (id: string) => repo.exists(store.db, id),
    count: (db: Kysely<DB> = store.db) => repo.count(db),
  };
}
export type OrgsService = ReturnType<typeof orgsService>;

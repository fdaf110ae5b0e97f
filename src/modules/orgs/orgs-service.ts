import type { Store } from '../../db/database.ts';
import { inTransaction } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { SCOPES } from '../api-keys/api-keys-fns.ts';
import type { ApiKeysService } from '../api-keys/api-keys-service.ts';
import type { UsersService } from '../users/users-service.ts';
import type { OrgsRepo } from './orgs-repo.ts';

export interface CreatedOrg {
  org: { id: string; name: string };
  owner: { id: string; email: string };
  apiKey: string;
}

export function orgsService(deps: { store: Store; repo: OrgsRepo; users: UsersService; apiKeys: ApiKeysService; clock: Clock }) {
  const { store, repo, users, apiKeys, clock } = deps;
  return {
    /** An organization, its owner and an API key holding every scope, all or nothing. */
    create(input: { name: string; ownerEmail?: string | undefined; ownerPassword?: string | undefined }): Promise<CreatedOrg> {
      return inTransaction(store.db, async (trx) => {
        const org = { id: newId('org'), name: input.name, created_at: clock.now() };
        await repo.insert(trx, org);
        const owner = await users.add(org.id, { email: input.ownerEmail ?? 'owner@localhost', name: 'Owner', role: 'owner', password: input.ownerPassword }, trx);
        const key = await apiKeys.create(org.id, { type: 'user', id: owner.id }, { name: 'Owner key (CLI)', scopes: [...SCOPES] }, null, trx);
        return { org: { id: org.id, name: org.name }, owner: { id: owner.id, email: owner.email }, apiKey: key.key };
      });
    },
    exists: (id: string) => repo.exists(store.db, id),
    count: () => repo.count(store.db),
  };
}
export type OrgsService = ReturnType<typeof orgsService>;

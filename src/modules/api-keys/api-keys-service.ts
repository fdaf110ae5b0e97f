import type { Kysely } from 'kysely';
import { inTransaction, type Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso, isoOrNull } from '../../lib/clock.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AuditService } from '../audit/audit-service.ts';
import { generateKey, grantRefusal, hashKey, isWellFormedKey, revocationRefusal, sameHash, visiblePrefix, type Grantor, type KeyEnv, type Scope } from './api-keys-fns.ts';
import type { ApiKeyRow, ApiKeysRepo } from './api-keys-repo.ts';
import type { ApiKey, CreateApiKeyBody, CreatedApiKey } from './api-keys-schemas.ts';

/** The authenticated caller of a REST request: an API key, or a person signed in to the dashboard. */
export interface Principal {
  orgId: string;
  scopes: ReadonlySet<string>;
  actor: Actor;
  /** The key, when authenticated by one (its use is audited). */
  keyId: string | null;
  /** When the key expires (null: never, or a session); a key it mints may not outlive it. */
  expiresAt: number | null;
  /** The session's CSRF token, when authenticated by the session cookie. */
  csrfToken: string | null;
}

const toApiKey = (r: ApiKeyRow): ApiKey => ({
  id: r.id,
  name: r.name,
  scopes: JSON.parse(r.scopes) as Scope[],
  expiresAt: isoOrNull(r.expires_at),
  prefix: r.prefix,
  createdAt: iso(r.created_at),
  lastUsedAt: isoOrNull(r.last_used_at),
});

export function apiKeysService(deps: { store: Store; repo: ApiKeysRepo; audit: AuditService; clock: Clock; cursors: CursorCodec; env: KeyEnv }) {
  const { store, repo, audit, clock, cursors, env } = deps;
  return {
    /**
     * Resolves a bearer key to its organization and scopes, or null. Malformed keys, keys of the other
     * environment and keys with a bad checksum are refused before any lookup. Every request reads the
     * row, so revocation is seen at once by every instance sharing the store.
     */
    async authenticate(key: string): Promise<Principal | null> {
      if (!isWellFormedKey(key, env)) return null;
      const hash = hashKey(key);
      const row = await repo.findByHash(hash);
      if (!row || !sameHash(row.key_hash, hash)) return null;
      if (row.revoked_at !== null) return null;
      if (row.expires_at !== null && row.expires_at <= clock.now()) return null;
      return { orgId: row.org_id, keyId: row.id, actor: { type: 'api_key', id: row.id }, csrfToken: null, expiresAt: row.expires_at, scopes: new Set(JSON.parse(row.scopes) as string[]) };
    },

    /**
     * What a failed key names, for the per-credential failure limit: a key of our shape is aimed at the
     * key with its visible prefix (guesses at one key share it); anything else names nothing.
     */
    credentialOf: (key: string): string | null => (isWellFormedKey(key, env) ? `key:${visiblePrefix(key)}` : null),

    /**
     * `caller` null means a trusted caller (the CLI), which may grant any scope. A key minted by an expiring
     * key expires with it when no `expiresAt` is asked for (see `grantRefusal`).
     */
    async create(orgId: string, actor: Actor, input: CreateApiKeyBody, caller: Grantor | null, db: Kysely<DB> = store.db): Promise<CreatedApiKey> {
      const now = clock.now();
      let expiresAt: number | null = input.expiresAt === undefined ? (caller?.expiresAt ?? null) : null;
      if (input.expiresAt) {
        expiresAt = Date.parse(input.expiresAt);
        if (!(expiresAt > now)) throw new AppError('VALIDATION_ERROR', 'Invalid expiry', [{ path: '/expiresAt', message: 'must be in the future' }]);
      }
      const refusal = grantRefusal(caller, { what: 'The new key', scopes: input.scopes, expiresAt });
      if (refusal) throw new AppError('FORBIDDEN', refusal);
      const key = generateKey(env);
      const row: ApiKeyRow = {
        id: newId('key'),
        org_id: orgId,
        name: input.name,
        prefix: visiblePrefix(key),
        key_hash: hashKey(key),
        scopes: JSON.stringify(input.scopes),
        expires_at: expiresAt,
        revoked_at: null,
        last_used_at: null,
        created_at: now,
        updated_at: now,
      };
      await inTransaction(db, async (trx) => {
        await repo.insert(trx, row);
        await audit.record(trx, { orgId, action: 'api_key.created', actor, target: { type: 'api_key', id: row.id }, metadata: { name: row.name, scopes: input.scopes } });
      });
      return { ...toApiKey(row), key };
    },

    list(orgId: string, query: { limit: number; cursor?: string | undefined }): Promise<Page<ApiKey>> {
      return paginate(cursors, `${orgId}:api_keys`, query, (after) => repo.page(store.db, orgId, query.limit, after), () => repo.count(store.db, orgId), toApiKey);
    },

    /**
     * `callerScopes` null means a trusted caller (the CLI). The checks and the revocation run in one
     * transaction over the locked key rows, so two keys revoking each other cannot both succeed.
     */
    async revoke(orgId: string, actor: Actor, id: string, callerScopes: ReadonlySet<string> | null): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        const now = clock.now();
        const keys = (await repo.activeForRevocation(trx, orgId, store.dialect === 'postgres'))
          .map((k) => ({ id: k.id, scopes: JSON.parse(k.scopes) as string[], usable: k.expires_at === null || k.expires_at > now }));
        const target = keys.find((k) => k.id === id);
        if (!target) throw notFound('API key');
        const refusal = revocationRefusal(target, keys.filter((k) => k.usable), { scopes: callerScopes, byKey: actor.type === 'api_key' });
        if (refusal) throw new AppError(refusal.code, refusal.message);
        if (!(await repo.revoke(trx, orgId, id, now))) throw notFound('API key');
        await audit.record(trx, { orgId, action: 'api_key.revoked', actor, target: { type: 'api_key', id } });
      });
    },
  };
}
export type ApiKeysService = ReturnType<typeof apiKeysService>;

import type { IntegrationRow } from '../integrations/integrations-repo.ts';
import type { SuppressionWindow } from '../suppression/suppression-fns.ts';
import type { CredentialColumn, IngestRepo } from './ingest-repo.ts';

/** What ingest needs of an organization besides the integration: its windows and its clients by slug. */
export interface OrgConfig {
  /** Windows not yet ended when loaded, oldest first; whether one is in force is decided per alert. */
  windows: SuppressionWindow[];
  clientsBySlug: Map<string, string>;
}

interface Cached<T> {
  version: number;
  value: T;
}

/** Entries kept per map; beyond it the oldest go (a token or organization that comes back is read again). */
const MAX_ENTRIES = 10_000;

function bounded<T>(map: Map<string, T>, key: string, value: T): void {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

/**
 * Integrations by token, and each organization's windows and client slugs, cached in this process and valid
 * while the organization's config version is the one they were read with. The version is read on every
 * request — one primary-key lookup instead of the three reads it replaces — and every writer of those rows bumps
 * it in the same transaction (config-versions.ts), on whichever instance or process makes it: a rotated,
 * disabled or deleted token, a new window or a renamed client is seen by the next request everywhere.
 */
export function ingestCache(deps: {
  repo: IngestRepo;
  loadOrg: (orgId: string, at: number) => Promise<OrgConfig>;
  now: () => number;
}) {
  const { repo, loadOrg, now } = deps;
  const tokens = new Map<string, Cached<IntegrationRow>>();
  const orgs = new Map<string, Cached<OrgConfig>>();

  async function byCredential(column: CredentialColumn, value: string): Promise<{ row: IntegrationRow; version: number } | null> {
    // Ingest's own path keys by the token alone; a vendor key's digest is prefixed by its column.
    const key = column === 'token' ? value : `${column}:${value}`;
    const hit = tokens.get(key);
    if (hit) {
      const version = await repo.version(hit.value.org_id);
      if (version === hit.version) return { row: hit.value, version };
      tokens.delete(key);
    }
    const found = await repo.byCredential(column, value);
    if (found) bounded(tokens, key, { version: found.version, value: found.row });
    return found;
  }

  return {
    /** The integration behind a token (enabled or not) and the organization's current version; null: no such token. */
    integration: (token: string) => byCredential('token', token),

    /**
     * The same by the digest of a vendor-style key (a PagerDuty routing key, an Opsgenie GenieKey): what is
     * looked up, and cached, is the digest, never the key.
     */
    integrationByKey: (column: 'routing_key_digest' | 'genie_key_digest', digest: string) => byCredential(column, digest),

    /**
     * The organization's windows and clients as of `version` (read by this request) or later. A reload is
     * tagged with the version read before it, so a change committed during the reload makes the next request
     * read again rather than keep a copy older than its tag.
     */
    async org(orgId: string, version: number): Promise<OrgConfig> {
      const hit = orgs.get(orgId);
      if (hit && hit.version === version) return hit.value;
      const before = await repo.version(orgId);
      const value = await loadOrg(orgId, now());
      bounded(orgs, orgId, { version: before, value });
      return value;
    },
  };
}
export type IngestCache = ReturnType<typeof ingestCache>;

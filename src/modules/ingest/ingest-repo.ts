import type { Kysely } from 'kysely';
import type { StatementSync } from 'node:sqlite';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { runSql } from '../../db/sql-text.ts';
import type { IntegrationRow } from '../integrations/integrations-repo.ts';

/**
 * Ingest's reads, written out once as SQL text (building them with Kysely on every request cost a noticeable
 * share of the server's time): the credential's integration and the organization's config version. Its writes
 * are the alert writer's (alerts/alert-writer.ts).
 */

/** One version read per request; the token lookup reads the row and its organization's version in one snapshot. */
const VERSION_SQL = 'select version from config_versions where org_id = ?';
/** What identifies an integration: its ingest token, or the digest of one of its vendor-style keys (migration 0019). */
export type CredentialColumn = 'token' | 'routing_key_digest' | 'genie_key_digest';
const CREDENTIAL_SQL = (column: CredentialColumn, p: string) => `select i.*, coalesce((select v.version from config_versions v where v.org_id = i.org_id), 0) as config_version
  from integrations i where i.${column} = ${p}`;
const CREDENTIAL_COLUMNS: readonly CredentialColumn[] = ['token', 'routing_key_digest', 'genie_key_digest'];

/**
 * Version reads over a network round trip, shared: a read asked for while one is in flight waits for the
 * next, which reads every organization asked for meanwhile. Each request's read still starts after the
 * request arrived, so it sees every change committed before.
 */
function sharedReads(readMany: (orgIds: string[]) => Promise<Map<string, number>>): (orgId: string) => Promise<number> {
  let waiting = new Map<string, Array<{ resolve: (v: number) => void; reject: (e: unknown) => void }>>();
  let running = false;
  async function pump(): Promise<void> {
    running = true;
    while (waiting.size > 0) {
      const batch = waiting;
      waiting = new Map();
      try {
        const found = await readMany([...batch.keys()]);
        for (const [orgId, ws] of batch) for (const w of ws) w.resolve(found.get(orgId) ?? 0);
      } catch (error) {
        for (const ws of batch.values()) for (const w of ws) w.reject(error);
      }
    }
    running = false;
  }
  return (orgId) => new Promise((resolve, reject) => {
    const ws = waiting.get(orgId);
    if (ws) ws.push({ resolve, reject });
    else waiting.set(orgId, [{ resolve, reject }]);
    if (!running) void pump();
  });
}

export interface IngestRepo {
  /** The organization's config version (0 before anything bumped it). */
  version(orgId: string): number | Promise<number>;
  /** The integration behind a credential, with its organization's version read in the same snapshot. */
  byCredential(column: CredentialColumn, value: string): Promise<{ row: IntegrationRow; version: number } | null>;
}

type Found = IntegrationRow & { config_version: number };
function withVersion(r: Found | undefined): { row: IntegrationRow; version: number } | null {
  if (!r) return null;
  const { config_version, ...row } = r;
  return { row, version: Number(config_version) };
}

export function ingestRepo(store: Store): IngestRepo {
  const raw = store.sqlite?.raw;
  if (store.sqlite && raw) {
    const sqlite = store.sqlite;
    const prepared = new Map<string, StatementSync>();
    const statement = (text: string) => {
      let s = prepared.get(text);
      if (!s) prepared.set(text, (s = raw.prepare(text)));
      return s;
    };
    const credentialText = new Map(CREDENTIAL_COLUMNS.map((c) => [c, CREDENTIAL_SQL(c, '?')]));
    return {
      version: (orgId) => sqlite.read(() => Number((statement(VERSION_SQL).get(orgId) as { version: number } | undefined)?.version ?? 0)),
      byCredential: async (column, value) => withVersion(await sqlite.read(() => statement(credentialText.get(column) as string).get(value) as Found | undefined)),
    };
  }
  return {
    version: sharedReads(async (orgIds) => new Map((await runSql<{ org_id: string; version: number }>(store.db,
      'select org_id, version from config_versions where org_id = any($1)', [orgIds])).map((r) => [r.org_id, Number(r.version)]))),
    byCredential: async (column, value) => withVersion((await runSql<Found>(store.db, CREDENTIAL_SQL(column, '$1'), [value]))[0]),
  };
}

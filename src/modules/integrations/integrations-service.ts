import { inTransaction, type Store } from '../../db/database.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { notFound } from '../../lib/errors.ts';
import { newId, orderedId } from '../../lib/ids.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { isoOrNull } from '../../lib/clock.ts';
import { checkMapping } from '../ingest/mapping-fns.ts';
import type { ClientsRepo } from '../clients/clients-repo.ts';
import type { DeliveryStats } from './delivery-stats.ts';
import { maskToken, newCredentials } from './integrations-fns.ts';
import type { IntegrationRow, IntegrationsRepo, RejectionRow } from './integrations-repo.ts';
import { OPSGENIE_PREFIX, PAGERDUTY_PATH } from './integrations-schemas.ts';
import type { CreateIntegrationBody, FlapRule, Integration, Mapping, Rejection, UpdateIntegrationBody } from './integrations-schemas.ts';
import { DEFAULT_FLAP_RULE } from '../alerts/flap-fns.ts';

/** An integration's flap rule as its columns. */
const flapColumns = (f: FlapRule) => ({ flap_threshold: f.threshold, flap_window_seconds: f.windowSeconds, flap_stable_seconds: f.stableSeconds });

/** Bodies kept with a rejection: enough to see what the sender sent, bounded. */
const PAYLOAD_KEPT = 16 * 1024;

export function integrationsService(deps: {
  store: Store;
  repo: IntegrationsRepo;
  clients: ClientsRepo;
  audit: AuditService;
  stats: DeliveryStats;
  clock: Clock;
  cursors: CursorCodec;
  baseUrl: string;
}) {
  const { store, repo, clients, audit, stats, clock, cursors, baseUrl } = deps;

  /**
   * `reveal`: the caller holds `integrations:write`. The token and the vendor-style keys are ingest
   * credentials (they can resolve, acknowledge and suppress alerts), so readers get them masked.
   */
  const toIntegration = (r: IntegrationRow, reveal: boolean): Integration => {
    const d = stats.unflushed(r.id);
    const secret = (value: string) => (reveal ? value : maskToken(value));
    const token = secret(r.token);
    const lastAlertAt = Math.max(r.last_alert_at ?? 0, d?.lastAlertAt ?? 0);
    const lastRejectedAt = Math.max(r.last_rejected_at ?? 0, d?.lastRejectedAt ?? 0);
    return {
      id: r.id,
      name: r.name,
      preset: r.preset,
      enabled: r.enabled === 1,
      token,
      ingestUrl: `${baseUrl}/api/inbound/webhook/${token}`,
      routingKey: secret(r.routing_key),
      pagerdutyUrl: `${baseUrl}${PAGERDUTY_PATH}`,
      genieKey: secret(r.genie_key),
      opsgenieApiUrl: `${baseUrl}${OPSGENIE_PREFIX}/`,
      mapping: r.mapping === null ? null : store.readJson<Mapping>(r.mapping),
      clientId: r.client_id,
      flapping: {
        threshold: Number(r.flap_threshold ?? DEFAULT_FLAP_RULE.threshold),
        windowSeconds: Number(r.flap_window_seconds ?? DEFAULT_FLAP_RULE.windowSeconds),
        stableSeconds: Number(r.flap_stable_seconds ?? DEFAULT_FLAP_RULE.stableSeconds),
      },
      lastAlertAt: lastAlertAt === 0 ? null : iso(lastAlertAt),
      acceptedCount: Number(r.accepted_count) + (d?.accepted ?? 0),
      rejectedCount: Number(r.rejected_count) + (d?.rejected ?? 0),
      lastRejectedAt: lastRejectedAt === 0 ? null : iso(lastRejectedAt),
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
    };
  };

  const toRejection = (r: RejectionRow): Rejection => ({
    id: r.id,
    status: r.status,
    code: r.code,
    error: r.error,
    details: r.details === null ? null : store.readJson<ErrorDetail[]>(r.details),
    payload: r.payload,
    createdAt: iso(r.created_at),
  });

  /** What the schema cannot check: the mapping's paths and targets, and that the client is the organization's. */
  async function checkLinks(db: Kysely<DB>, orgId: string, input: { mapping?: Mapping | null | undefined; clientId?: string | null | undefined }): Promise<void> {
    const errors = input.mapping ? checkMapping(input.mapping) : [];
    if (input.clientId != null && !(await clients.get(db, orgId, input.clientId))) {
      errors.push({ path: '/clientId', message: 'no such client in this organization' });
    }
    if (errors.length > 0) throw new AppError('VALIDATION_ERROR', 'Integration is invalid', errors);
  }

  // A sender over its rate limit, or still posting to a disabled integration, repeats the same refusal many
  // times a minute: the first of each minute is logged (all are counted), so the log keeps other reasons.
  const lastLogged = new Map<string, number>();
  const firstInWindow = (key: string, status: number, now: number): boolean => {
    if (status !== 401 && status !== 429) return true;
    const last = lastLogged.get(key);
    if (last !== undefined && now - last < 60_000) return false;
    lastLogged.set(key, now);
    return true;
  };

  return {
    async create(orgId: string, actor: Actor, input: CreateIntegrationBody, db: Kysely<DB> = store.db): Promise<Integration> {
      await checkLinks(db, orgId, input);
      const now = clock.now();
      const row: IntegrationRow = {
        id: newId('int'),
        org_id: orgId,
        name: input.name,
        preset: input.preset ?? 'standard',
        enabled: input.enabled === false ? 0 : 1,
        ...newCredentials(),
        mapping: input.mapping ? JSON.stringify(input.mapping) : null,
        client_id: input.clientId ?? null,
        ...flapColumns(input.flapping ?? { threshold: DEFAULT_FLAP_RULE.threshold, windowSeconds: DEFAULT_FLAP_RULE.windowSeconds, stableSeconds: DEFAULT_FLAP_RULE.stableSeconds }),
        accepted_count: 0,
        rejected_count: 0,
        last_alert_at: null,
        last_rejected_at: null,
        created_at: now,
        updated_at: now,
      };
      await inTransaction(db, async (trx) => {
        await repo.insert(trx, row);
        await audit.record(trx, { orgId, action: 'integration.created', actor, target: { type: 'integration', id: row.id }, metadata: { name: row.name } });
      });
      return toIntegration(row, true);
    },

    get: (orgId: string, id: string, reveal: boolean): Promise<Integration> => stats.consistent(async () => {
      const row = await repo.get(store.db, orgId, id);
      if (!row) throw notFound('Integration');
      return toIntegration(row, reveal);
    }),

    list(orgId: string, query: { limit: number; cursor?: string | undefined; clientId?: string | undefined }, reveal: boolean): Promise<Page<Integration>> {
      return stats.consistent(() => paginate(cursors, `${orgId}:integrations:${query.clientId ?? ''}`, query,
        (after) => repo.page(store.db, orgId, query.clientId, query.limit, after), () => repo.count(store.db, orgId, query.clientId), (r) => toIntegration(r, reveal)));
    },

    /**
     * Inside `consistent`, as a read is: the row it returns carries counts that a flush must not move meanwhile.
     * Not when the caller's transaction is open (an import): a flush waited for there would need the store it holds.
     */
    update(orgId: string, actor: Actor, id: string, input: UpdateIntegrationBody, db: Kysely<DB> = store.db): Promise<Integration> {
      const run = async () => {
        const row = await inTransaction(db, async (trx) => {
          await checkLinks(trx, orgId, input);
          const updated = await repo.update(trx, orgId, id, {
            ...(input.name !== undefined && { name: input.name }),
            ...(input.preset !== undefined && { preset: input.preset }),
            ...(input.enabled !== undefined && { enabled: input.enabled ? 1 : 0 }),
            ...(input.mapping !== undefined && { mapping: input.mapping === null ? null : JSON.stringify(input.mapping) }),
            ...(input.clientId !== undefined && { client_id: input.clientId }),
            ...(input.flapping !== undefined && flapColumns(input.flapping)),
            updated_at: clock.now(),
          });
          if (!updated) throw notFound('Integration');
          await audit.record(trx, { orgId, action: 'integration.updated', actor, target: { type: 'integration', id }, metadata: { changed: Object.keys(input) } });
          return updated;
        });
        return toIntegration(row, true);
      };
      return db.isTransaction ? run() : stats.consistent(run);
    },

    async remove(orgId: string, actor: Actor, id: string): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        if (!(await repo.remove(trx, orgId, id))) throw notFound('Integration');
        await audit.record(trx, { orgId, action: 'integration.deleted', actor, target: { type: 'integration', id } });
      });
    },

    /**
     * A new token, routing key and GenieKey; the old ones are refused from the next request on, on every instance
     * (the change bumps the config version ingest checks).
     */
    rotateToken: (orgId: string, actor: Actor, id: string): Promise<Integration> => stats.consistent(async () => {
      const row = await store.db.transaction().execute(async (trx) => {
        const updated = await repo.update(trx, orgId, id, { ...newCredentials(), updated_at: clock.now() });
        if (!updated) throw notFound('Integration');
        await audit.record(trx, { orgId, action: 'integration.token_rotated', actor, target: { type: 'integration', id } });
        return updated;
      });
      return toIntegration(row, true);
    }),

    /** The stored row, for previews (null when it is not the organization's). */
    row: async (orgId: string, id: string): Promise<IntegrationRow> => {
      const row = await repo.get(store.db, orgId, id);
      if (!row) throw notFound('Integration');
      return row;
    },

    accepted: (integration: IntegrationRow) => stats.accepted(integration.id, clock.now()),

    /** Counts a refused payload and logs why, with the start of its body, for GET /rejections. */
    async rejected(integration: IntegrationRow, status: number, error: { code: string; error: string; details: ErrorDetail[] | null }, payload: string | null): Promise<void> {
      const now = clock.now();
      stats.rejected(integration.id, now);
      if (!firstInWindow(`${integration.id}:${status}`, status, now)) return;
      await repo.addRejection(store.db, {
        // Ordered: the log is listed and trimmed by (created_at, id), and a burst shares one millisecond.
        id: orderedId('rej', now),
        org_id: integration.org_id,
        integration_id: integration.id,
        status,
        code: error.code,
        error: error.error,
        details: error.details === null ? null : JSON.stringify(error.details),
        payload: payload === null ? null : payload.slice(0, PAYLOAD_KEPT),
        created_at: now,
      });
    },

    async rejections(orgId: string, id: string, query: { limit: number; cursor?: string | undefined }): Promise<Page<Rejection>> {
      if (!(await repo.get(store.db, orgId, id))) throw notFound('Integration');
      return paginate(cursors, `${orgId}:rejections:${id}`, query,
        (after) => repo.rejectionsPage(store.db, orgId, id, query.limit, after), () => repo.rejectionsCount(store.db, orgId, id), toRejection);
    },
  };
}
export type IntegrationsService = ReturnType<typeof integrationsService>;

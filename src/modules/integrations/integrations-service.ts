import { randomBytes } from 'node:crypto';
import type { Store } from '../../db/database.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { IntegrationRow, IntegrationsRepo } from './integrations-repo.ts';
import type { CreateIntegrationBody, Integration, UpdateIntegrationBody } from './integrations-schemas.ts';

/** 192 random bits, URL-safe: the token travels in the ingest URL path. */
const newToken = (): string => randomBytes(24).toString('base64url');

export function integrationsService(deps: { store: Store; repo: IntegrationsRepo; audit: AuditService; clock: Clock; cursors: CursorCodec; baseUrl: string }) {
  const { store, repo, audit, clock, cursors, baseUrl } = deps;

  const toIntegration = (r: IntegrationRow): Integration => ({
    id: r.id,
    name: r.name,
    preset: r.preset as Integration['preset'],
    enabled: r.enabled === 1,
    token: r.token,
    ingestUrl: `${baseUrl}/api/inbound/webhook/${r.token}`,
    mapping: r.mapping === null ? null : store.readJson(r.mapping),
    clientId: r.client_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  });

  return {
    async create(orgId: string, actor: Actor, input: CreateIntegrationBody): Promise<Integration> {
      const now = clock.now();
      const row: IntegrationRow = {
        id: newId('int'),
        org_id: orgId,
        name: input.name,
        preset: input.preset ?? 'standard',
        enabled: input.enabled === false ? 0 : 1,
        token: newToken(),
        mapping: null,
        client_id: null,
        accepted_count: 0,
        rejected_count: 0,
        last_alert_at: null,
        last_rejected_at: null,
        created_at: now,
        updated_at: now,
      };
      await store.db.transaction().execute(async (trx) => {
        await repo.insert(trx, row);
        await audit.record(trx, { orgId, action: 'integration.created', actor, target: { type: 'integration', id: row.id }, metadata: { name: row.name } });
      });
      return toIntegration(row);
    },

    async get(orgId: string, id: string): Promise<Integration> {
      const row = await repo.get(store.db, orgId, id);
      if (!row) throw notFound('Integration');
      return toIntegration(row);
    },

    list(orgId: string, query: { limit: number; cursor?: string | undefined }): Promise<Page<Integration>> {
      return paginate(cursors, `${orgId}:integrations`, query,
        (after) => repo.page(store.db, orgId, query.limit, after), () => repo.count(store.db, orgId), toIntegration);
    },

    async update(orgId: string, actor: Actor, id: string, input: UpdateIntegrationBody): Promise<Integration> {
      const row = await store.db.transaction().execute(async (trx) => {
        const updated = await repo.update(trx, orgId, id, {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.preset !== undefined && { preset: input.preset }),
          ...(input.enabled !== undefined && { enabled: input.enabled ? 1 : 0 }),
          updated_at: clock.now(),
        });
        if (!updated) throw notFound('Integration');
        await audit.record(trx, { orgId, action: 'integration.updated', actor, target: { type: 'integration', id }, metadata: { changed: Object.keys(input) } });
        return updated;
      });
      return toIntegration(row);
    },

    async remove(orgId: string, actor: Actor, id: string): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        if (!(await repo.remove(trx, orgId, id))) throw notFound('Integration');
        await audit.record(trx, { orgId, action: 'integration.deleted', actor, target: { type: 'integration', id } });
      });
    },

    /** The integration behind an ingest token, if it exists and is enabled. */
    async byToken(token: string): Promise<IntegrationRow | null> {
      const row = await repo.byToken(store.db, token);
      return row && row.enabled === 1 ? row : null;
    },
  };
}
export type IntegrationsService = ReturnType<typeof integrationsService>;

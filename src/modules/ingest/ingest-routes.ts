import { Type } from 'typebox';
import { authFailed, checkAuthFailures, spend, type Limits } from '../../http/auth.ts';
import type { Api } from '../../http/types.ts';
import type { IntegrationRow } from '../integrations/integrations-repo.ts';
import type { IntegrationsService } from '../integrations/integrations-service.ts';
import type { IngestCache } from './ingest-cache.ts';
import { IngestResponse } from './ingest-schemas.ts';
import type { IngestService } from './ingest-service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    integration?: IntegrationRow;
    /** The organization's config version read with the integration (what ingest's caches are checked against). */
    configVersion?: number;
    /** The start of a body that was not valid JSON, for the integration's rejections log. */
    invalidBody?: string;
  }
}

/** The error envelope we sent, read back from the serialized reply. */
function sentError(payload: unknown): { code: string; error: string; details: Array<{ path: string; message: string }> | null } {
  try {
    const e = JSON.parse(String(payload)) as { code?: unknown; error?: unknown; details?: unknown };
    return { code: String(e.code), error: String(e.error), details: Array.isArray(e.details) ? e.details : null };
  } catch {
    return { code: 'UNKNOWN', error: 'unreadable error body', details: null };
  }
}

export function ingestRoutes(app: Api, deps: { ingest: IngestService; ingestCache: IngestCache; integrations: IntegrationsService; limits: Limits }): void {
  const { ingest, ingestCache, integrations, limits } = deps;
  app.post('/api/inbound/webhook/:token', {
    // Not part of /api/v1: no entry in the OpenAPI description (interface §4.3).
    schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 200 }) }), response: { 200: IngestResponse } },
    // Token (401) and rate limit (429) come before the body is read: content type (415), size (413), JSON (400).
    onRequest: async (req, reply) => {
      await checkAuthFailures(limits, req.ip);
      const { token } = req.params as { token: string };
      const found = await ingestCache.integration(token);
      if (!found) return authFailed(limits, req.ip, 'Invalid or disabled ingest token');
      const integration = found.row;
      req.configVersion = found.version;
      // Known from here on, so that even a refusal shows up in the integration's counters and log.
      req.integration = integration;
      if (integration.enabled !== 1) return authFailed(limits, req.ip, 'Invalid or disabled ingest token');
      // Counted per integration, not per token string, so rotating a token keeps the same budget.
      await spend(limits.ingest, integration.id, reply);
    },
    onSend: async (req, reply, payload) => {
      const integration = req.integration;
      if (!integration) return payload;
      if (reply.statusCode < 300) integrations.accepted(integration);
      else {
        const body = req.body !== undefined ? JSON.stringify(req.body) : (req.invalidBody ?? null);
        await integrations.rejected(integration, reply.statusCode, sentError(payload), body);
      }
      return payload;
    },
  }, async (req) => ({ data: { alerts: await ingest.ingest(req.integration as IntegrationRow, req.configVersion as number, req.body) } }));
}

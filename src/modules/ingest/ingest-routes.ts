import { Type } from 'typebox';
import { authFailed, checkAuthFailures, spend, type Limits } from '../../http/auth.ts';
import type { Api } from '../../http/types.ts';
import type { IntegrationRow } from '../integrations/integrations-repo.ts';
import type { IntegrationsService } from '../integrations/integrations-service.ts';
import { IngestResponse } from './ingest-schemas.ts';
import type { IngestService } from './ingest-service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    integration?: IntegrationRow;
  }
}

export function ingestRoutes(app: Api, deps: { ingest: IngestService; integrations: IntegrationsService; limits: Limits }): void {
  const { ingest, integrations, limits } = deps;
  app.post('/api/inbound/webhook/:token', {
    // Not part of /api/v1: no entry in the OpenAPI description (interface §4.3).
    schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 200 }) }), response: { 200: IngestResponse } },
    // Token (401) and rate limit (429) come before the body is read: content type (415), size (413), JSON (400).
    onRequest: async (req, reply) => {
      await checkAuthFailures(limits, req.ip);
      const { token } = req.params as { token: string };
      const integration = await integrations.byToken(token);
      if (!integration) return authFailed(limits, req.ip, 'Invalid or disabled ingest token');
      req.integration = integration;
      // Counted per integration, not per token string, so rotating a token keeps the same budget.
      await spend(limits.ingest, integration.id, reply);
    },
  }, async (req) => ({ data: { alerts: await ingest.ingest(req.integration as IntegrationRow, req.body) } }));
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { authFailed, spend, type Limits } from '../../http/auth.ts';
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
    /** The refusal as our error, when the answer was put in a vendor's shape (see inbound-http.ts), for that log. */
    rejection?: Rejected;
  }
}

type Rejected = { code: string; error: string; details: Array<{ path: string; message: string }> | null };

/** The error envelope we sent, read back from the serialized reply. */
function sentError(payload: unknown): Rejected {
  try {
    const e = JSON.parse(String(payload)) as { code?: unknown; error?: unknown; details?: unknown };
    return { code: String(e.code), error: String(e.error), details: Array.isArray(e.details) ? e.details : null };
  } catch {
    return { code: 'UNKNOWN', error: 'unreadable error body', details: null };
  }
}

/**
 * The `onSend` of every route a sender posts alerts to: a payload the integration took counts as accepted, one it
 * refused as rejected, with the error the sender got and the start of its body in the integration's log.
 */
export const countDelivery = (integrations: IntegrationsService) => async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
  const integration = req.integration;
  if (!integration) return payload;
  if (reply.statusCode < 300) integrations.accepted(integration);
  // A store that is down refused nothing of the sender's, and could not take the log entry anyway.
  else if (reply.statusCode !== 503) {
    const body = req.body !== undefined ? JSON.stringify(req.body) : (req.invalidBody ?? null);
    await integrations.rejected(integration, reply.statusCode, req.rejection ?? sentError(payload), body);
  }
  return payload;
};

const INGEST_PREFIX = '/api/inbound/webhook/';
/** The ingest route's pattern: what logs and metrics name it by (the URL itself holds the token). */
export const INGEST_ROUTE = `${INGEST_PREFIX}:token`;
export const isIngestUrl = (url: string): boolean => url.startsWith(INGEST_PREFIX);

/**
 * The answer to an unknown or disabled token: 401, or 429 once the address passes its failure limit. A
 * token names no credential to count against: tokens are random (nothing to aim guesses at), and a
 * disabled integration's token is right, its sender only not yet reconfigured (a 429 would make tools
 * such as Alertmanager retry where a 401 makes them stop).
 */
export const refuseIngestToken = (limits: Limits, ip: string): Promise<never> => authFailed(limits, ip, 'Invalid or disabled ingest token');

export function ingestRoutes(app: Api, deps: { ingest: IngestService; ingestCache: IngestCache; integrations: IntegrationsService; limits: Limits }): void {
  const { ingest, ingestCache, integrations, limits } = deps;
  app.post(INGEST_ROUTE, {
    // Not part of /api/v1: no entry in the OpenAPI description (interface §4.3).
    schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 200 }) }), response: { 200: IngestResponse } },
    // Token (401) and rate limit (429) come before the body is read: content type (415), size (413), JSON (400).
    onRequest: async (req, reply) => {
      const { token } = req.params as { token: string };
      const found = await ingestCache.integration(token);
      if (!found) return refuseIngestToken(limits, req.ip);
      const integration = found.row;
      req.configVersion = found.version;
      // Known from here on, so that even a refusal shows up in the integration's counters and log.
      req.integration = integration;
      if (integration.enabled !== 1) return refuseIngestToken(limits, req.ip);
      // Counted per integration, not per token string, so rotating a token keeps the same budget.
      await spend(limits.ingest, integration.id, reply);
    },
    onSend: countDelivery(integrations),
  }, async (req) => ({ data: { alerts: await ingest.ingest(req.integration as IntegrationRow, req.configVersion as number, req.body) } }));
}

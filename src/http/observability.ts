import type { Metrics } from '../infra/metrics.ts';
import { INGEST_ROUTE } from '../modules/ingest/ingest-routes.ts';
import type { IngestOutcome } from '../modules/ingest/ingest-schemas.ts';
import type { Api } from './types.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** What an accepted ingest request did with each alert, for the metrics. */
    ingestOutcomes?: readonly IngestOutcome[];
  }
}

/**
 * One access-log line and the HTTP metrics per request. Requests are named by their route pattern, never
 * by the URL: the ingest URL holds the integration's token. Headers are not logged at all.
 */
export function observability(app: Api, metrics: Metrics): void {
  app.addHook('preSerialization', async (req, _reply, payload) => {
    if (req.routeOptions.url === INGEST_ROUTE) req.ingestOutcomes = (payload as { data?: { alerts?: IngestOutcome[] } }).data?.alerts;
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? null;
    const status = reply.statusCode;
    metrics.http(req.method, route ?? 'unmatched', status, reply.elapsedTime / 1000);
    if (route === INGEST_ROUTE) metrics.ingest(status, req.ingestOutcomes ?? []);
    req.log.info({
      method: req.method,
      route,
      status,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      orgId: req.principal?.orgId ?? req.integration?.org_id ?? null,
    }, 'request');
  });
}

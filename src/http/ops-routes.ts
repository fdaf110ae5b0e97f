import type { Container } from '../container.ts';
import { sameToken } from '../infra/metrics.ts';
import { AppError } from '../lib/errors.ts';
import { bearerToken } from './auth.ts';
import type { Api } from './types.ts';

/**
 * What an operator's tooling calls: liveness, readiness (the store answers), and the Prometheus metrics,
 * which exist only when `METRICS_TOKEN` is set and then need it as a bearer token. Outside /api/v1 and
 * the OpenAPI document; every role serves them.
 */
export function opsRoutes(app: Api, c: Pick<Container, 'store' | 'metrics' | 'config'>): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    try {
      await c.store.ping();
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
  const token = c.config.metricsToken;
  if (token === undefined) return;
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (!sameToken(bearerToken(req.headers.authorization), token)) throw new AppError('UNAUTHORIZED', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"');
    const { contentType, body } = await c.metrics.render();
    return reply.type(contentType).send(body);
  });
}

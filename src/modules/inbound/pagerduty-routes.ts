import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import type { Limits } from '../../http/auth.ts';
import type { Api } from '../../http/types.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import type { IngestCache } from '../ingest/ingest-cache.ts';
import { countDelivery } from '../ingest/ingest-routes.ts';
import { maskToken, ROUTING_KEY_SHAPE } from '../integrations/integrations-fns.ts';
import { PAGERDUTY_PATH } from '../integrations/integrations-schemas.ts';
import type { IntegrationsService } from '../integrations/integrations-service.ts';
import { authenticateKey, vendorErrors } from './inbound-http.ts';
import type { InboundService } from './inbound-service.ts';
import { PD_LIMITS, readEvent, routingKeyOf } from './pagerduty-fns.ts';

const Accepted = Type.Object({ status: Type.String(), message: Type.String(), dedup_key: Type.String() }, { additionalProperties: false });

/** Our status words where PagerDuty's document gives none (its Error schema: a short `status`, a `message`, `errors`). */
const STATUS: Partial<Record<AppError['code'], string>> = {
  UNAUTHORIZED: 'unauthorized',
  RATE_LIMITED: 'throttled',
  PAYLOAD_TOO_LARGE: 'payload too large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported media type',
};
const field = (d: ErrorDetail) => `${d.path === '' ? 'event' : d.path.slice(1).replaceAll('/', '.')} ${d.message}`;

/** Errors in the shape of the Error response of PagerDuty/api-schema `reference/events-v2/openapiv3.json`. */
function pagerDutyError(e: AppError) {
  // Word for word the document's example of an unparseable body.
  if (e.code === 'INVALID_JSON') return { status: 'Unrecognized object', message: 'Event object format is unrecognized', errors: ['JSON parse error'] };
  if (e.code === 'VALIDATION_ERROR') return { status: 'invalid event', message: 'Event object is invalid', errors: (e.details ?? []).map(field) };
  return { status: STATUS[e.code] ?? 'error', message: e.message };
}

/**
 * PagerDuty's Events API v2 (`POST /v2/enqueue`), at PagerDuty's own path for senders that let you change only
 * the host, and under /api/inbound. The routing key is in the body, so the body is read before the key is
 * checked: size (413), JSON (400), routing key (401), rate limit (429), then the event (400). A 202 is sent
 * once the event is stored.
 */
export function pagerdutyRoutes(app: Api, deps: { inbound: InboundService; ingestCache: IngestCache; integrations: IntegrationsService; limits: Limits }): void {
  const routingKey = { column: 'routing_key_digest', shape: ROUTING_KEY_SHAPE, name: 'routing key' } as const;
  for (const url of ['/v2/enqueue', PAGERDUTY_PATH]) {
    app.post(url, {
      bodyLimit: PD_LIMITS.bodyBytes,
      schema: { hide: true, response: { 202: Accepted } },
      errorHandler: vendorErrors(pagerDutyError, { tooLarge: 'The event is larger than 512 KB' }),
      onSend: countDelivery(deps.integrations),
    }, async (req, reply) => {
      const key = routingKeyOf(req.body);
      if (key === null) throw new AppError('VALIDATION_ERROR', 'Event object is invalid', [{ path: '/routing_key', message: 'is required' }]);
      const integration = await authenticateKey(deps, req, reply, routingKey, key);
      // The key is a credential: neither the alert's raw event nor the rejection log (both visible to readers) keep it.
      req.body = { ...(req.body as Record<string, unknown>), routing_key: maskToken(key) };
      const read = readEvent(req.body, randomUUID);
      if (!read.ok) throw new AppError('VALIDATION_ERROR', 'Event object is invalid', read.errors);
      await deps.inbound.pagerduty(integration, req.configVersion as number, read.event, req.body);
      return reply.code(202).send({ status: 'success', message: 'Event processed', dedup_key: read.event.dedupKey });
    });
  }
}

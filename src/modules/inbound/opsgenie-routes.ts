import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Limits } from '../../http/auth.ts';
import type { Api } from '../../http/types.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { iso } from '../../lib/clock.ts';
import type { SenderTarget } from '../alerts/alerts-service.ts';
import type { IngestCache } from '../ingest/ingest-cache.ts';
import { countDelivery } from '../ingest/ingest-routes.ts';
import { GENIE_KEY_SHAPE } from '../integrations/integrations-fns.ts';
import { OPSGENIE_PREFIX } from '../integrations/integrations-schemas.ts';
import type { IntegrationsService } from '../integrations/integrations-service.ts';
import { authenticateKey, vendorErrors } from './inbound-http.ts';
import type { InboundService } from './inbound-service.ts';
import { checkActionBody, OG_LIMITS, readCreate, readUpdate } from './opsgenie-fns.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Opsgenie request id this request answers with. */
    opsgenieRequestId?: string;
  }
}

/** Opsgenie's `BaseResponse` (opsgenie/opsgenie-oas `definitions/common.yaml`): seconds taken and the request's id. */
const base = { took: Type.Number(), requestId: Type.String() };
const Accepted = Type.Object({ result: Type.String(), ...base }, { additionalProperties: false });
const RequestStatus = Type.Object({
  data: Type.Object({
    success: Type.Boolean(), action: Type.String(), processedAt: Type.String(), integrationId: Type.String(),
    isSuccess: Type.Boolean(), status: Type.String(), alertId: Type.String(), alias: Type.String(),
  }, { additionalProperties: false }),
  ...base,
}, { additionalProperties: false });

const requestIdOf = (req: FastifyRequest): string => (req.opsgenieRequestId ??= randomUUID());
const took = (reply: FastifyReply): number => Math.round(reply.elapsedTime) / 1000;
const field = (d: ErrorDetail) => `${d.path === '' ? 'Request body' : d.path.slice(1).replaceAll('/', '.')} ${d.message}`;

/** Opsgenie's `ErrorResponse`: a message, the time taken, the request's id. */
const opsgenieError = (e: AppError, req: FastifyRequest, reply: FastifyReply) => ({
  message: e.code === 'VALIDATION_ERROR' && e.details?.length ? e.details.map(field).join('; ') : e.message,
  took: took(reply),
  requestId: requestIdOf(req),
});
/** Opsgenie's 422 ("Semantic errors in request body") for a body that parses but breaks a rule; 400 stays for bad JSON. */
const opsgenieStatus = (e: AppError): number => (e.code === 'VALIDATION_ERROR' ? 422 : e.status);

const invalid = (errors: ErrorDetail[]) => new AppError('VALIDATION_ERROR', 'Request body is not processable', errors);

/**
 * The alert and the action of `/v2/alerts/{identifier}/{verb}` (a 404 for any other verb), with `identifierType`
 * (opsgenie-oas `parameters/alert.yaml`): `id` (the default) or `alias`; alerts here have no tiny id.
 */
function addressed(params: { '*': string }, identifierType: string | undefined, verbs: readonly string[]): { target: SenderTarget; verb: string } {
  const path = params['*'];
  const cut = path.lastIndexOf('/');
  const identifier = path.slice(0, Math.max(cut, 0));
  const verb = path.slice(cut + 1);
  if (cut <= 0 || !verbs.includes(verb)) throw new AppError('NOT_FOUND', 'No such alert action');
  const wrong = (path: string, message: string) => new AppError('VALIDATION_ERROR', 'Invalid alert identifier', [{ path, message }]);
  if (identifier.length > OG_LIMITS.alias) throw wrong('/identifier', `must be at most ${OG_LIMITS.alias} characters`);
  if (identifierType === undefined || identifierType === 'id') return { target: { id: identifier }, verb };
  if (identifierType === 'alias') return { target: { fingerprint: identifier }, verb };
  throw wrong('/identifierType', identifierType === 'tiny' ? 'tiny is not supported (alerts here have no tiny id); use id or alias' : 'must be id or alias');
}

const IdentifierQuery = Type.Object({ identifierType: Type.Optional(Type.String({ maxLength: 16 })) });

/**
 * Opsgenie's Alert API, the calls a sender makes (opsgenie/opsgenie-oas `paths/alert.yaml`): create, close,
 * acknowledge, update message and description (Alertmanager's `update_alerts`), and the request status. At
 * Opsgenie's own paths from the root (a sender that lets you change only the host) and under
 * /api/inbound/opsgenie. Checks: GenieKey (401) → rate limit (429) → content type (415) → size (413) →
 * JSON (400) → fields (422). Every action is done, and stored, before its 202.
 */
export function opsgenieRoutes(app: Api, deps: { inbound: InboundService; ingestCache: IngestCache; integrations: IntegrationsService; limits: Limits }): void {
  const { inbound } = deps;
  const genieKey = { column: 'genie_key_digest', shape: GENIE_KEY_SHAPE, name: 'API key' } as const;
  const authenticate = async (req: FastifyRequest, reply: FastifyReply) => {
    const key = /^GenieKey\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
    await authenticateKey(deps, req, reply, genieKey, key);
  };
  const errorHandler = vendorErrors(opsgenieError, { status: opsgenieStatus });
  const accepted = (req: FastifyRequest, reply: FastifyReply) =>
    reply.code(202).send({ result: 'Request will be processed', took: took(reply), requestId: requestIdOf(req) });
  const sending = { onRequest: authenticate, errorHandler, onSend: countDelivery(deps.integrations) };
  const integrationOf = (req: FastifyRequest) => req.integration as NonNullable<FastifyRequest['integration']>;

  for (const prefix of ['', OPSGENIE_PREFIX]) {
    app.post(`${prefix}/v2/alerts`, { ...sending, schema: { hide: true, response: { 202: Accepted } } }, async (req, reply) => {
      const read = readCreate(req.body, randomUUID, req.ip);
      if (!read.ok) throw invalid(read.errors);
      await inbound.opsgenie.create(integrationOf(req), req.configVersion as number, requestIdOf(req), read.value.alert, req.body);
      return accepted(req, reply);
    });

    // `{identifier}/{verb}` as a wildcard: an alias may be 512 characters, more than the router takes in a parameter.
    const act = { ...sending, schema: { hide: true, querystring: IdentifierQuery, response: { 202: Accepted } } };
    app.post(`${prefix}/v2/alerts/*`, act, async (req, reply) => {
      const { target, verb } = addressed(req.params as { '*': string }, req.query.identifierType, ['close', 'acknowledge']);
      const errors = checkActionBody(req.body);
      if (errors.length > 0) throw invalid(errors);
      await inbound.opsgenie.act(integrationOf(req), requestIdOf(req), target, verb === 'close' ? 'resolve' : 'acknowledge');
      return accepted(req, reply);
    });
    app.put(`${prefix}/v2/alerts/*`, act, async (req, reply) => {
      const { target, verb } = addressed(req.params as { '*': string }, req.query.identifierType, ['message', 'description']);
      const read = readUpdate(req.body, verb as 'message' | 'description');
      if (!read.ok) throw invalid(read.errors);
      await inbound.opsgenie.update(integrationOf(req), requestIdOf(req), target, verb === 'message' ? { title: read.value as string } : { description: read.value });
      return accepted(req, reply);
    });

    app.get(`${prefix}/v2/alerts/requests/:requestId`, {
      onRequest: authenticate,
      errorHandler,
      schema: { hide: true, params: Type.Object({ requestId: Type.String({ maxLength: 64 }) }), response: { 200: RequestStatus } },
    }, async (req, reply) => {
      const integration = integrationOf(req);
      const r = await inbound.opsgenie.requestStatus(integration, req.params.requestId);
      if (!r) throw new AppError('NOT_FOUND', 'Request not found: it is unknown, or older than a day');
      const success = r.success === 1;
      return reply.send({
        data: { success, action: r.action, processedAt: iso(r.processed_at), integrationId: integration.id, isSuccess: success, status: r.status, alertId: r.alert_id ?? '', alias: r.alias ?? '' },
        took: took(reply),
        requestId: requestIdOf(req),
      });
    });
  }
}

import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import type { IngestService } from '../ingest/ingest-service.ts';
import { PRESETS } from '../ingest/presets.ts';
import {
  CreateIntegrationBody, Integration, IntegrationList, IntegrationListQuery, PresetList, PreviewBody, PreviewResponse, RejectionList, RejectionListQuery, UpdateIntegrationBody,
} from './integrations-schemas.ts';
import type { IntegrationsService } from './integrations-service.ts';

const One = Type.Object({ data: Integration }, { additionalProperties: false });

/** Only a caller that could rotate the token anyway sees it in full. */
const reveals = (req: FastifyRequest): boolean => principalOf(req).scopes.has('integrations:write');
const MASKED = 'Callers without `integrations:write` get `token`, `ingestUrl`, `routingKey` and `genieKey` masked: only the last 4 characters of each are shown (`…Ab3x`).';

export function integrationsRoutes(app: Api, deps: { integrations: IntegrationsService; ingest: IngestService }): void {
  const { integrations, ingest } = deps;
  const read = { scope: 'integrations:read', tag: 'integrations' } as const;
  const write = { scope: 'integrations:write', tag: 'integrations' } as const;

  app.get('/integrations', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List integrations', description: MASKED }, { querystring: IntegrationListQuery, response: { 200: IntegrationList } }),
  }, (req) => integrations.list(principalOf(req).orgId, { limit: req.query.limit ?? 25, cursor: req.query.cursor, clientId: req.query.clientId }, reveals(req)));

  app.post('/integrations', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Create an integration', description: 'Returns its ingest token and URL.' },
      { body: CreateIntegrationBody, response: { 201: One } }),
  }, async (req, reply) => reply.code(201).send({ data: await integrations.create(principalOf(req).orgId, actorOf(req), req.body) }));

  app.get('/integrations/presets', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List built-in presets', description: 'Each preset is a mapping for one sender, with a sample of what that sender posts.' },
      { response: { 200: PresetList } }),
  }, async () => ({ data: [...PRESETS] }));

  app.get('/integrations/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get an integration', description: MASKED }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await integrations.get(principalOf(req).orgId, req.params.id, reveals(req)) }));

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/integrations/:id',
      config: { scope: write.scope },
      schema: apiSchema({ ...write, summary: method === 'PUT' ? 'Update an integration' : 'Update an integration (synonym of PUT)', description: 'Partial: fields left out stay as they are.' },
        { params: IdParams, body: UpdateIntegrationBody, response: { 200: One } }),
      handler: async (req) => ({ data: await integrations.update(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }),
    });
  }

  app.post('/integrations/:id/preview', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'Preview a mapping',
      description: 'Runs a sample payload through the integration\'s mapping (or through `mapping`, unsaved) and returns the alerts ingest would store, or the errors it would answer with. Stores nothing.',
    }, { params: IdParams, body: PreviewBody, response: { 200: PreviewResponse } }),
  }, async (req) => {
    const row = await integrations.row(principalOf(req).orgId, req.params.id);
    return { data: await ingest.preview(row, req.body.payload, req.body.mapping) };
  });

  app.post('/integrations/:id/rotate-token', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Rotate the ingest token and keys', description: 'Issues a new token and ingest URL, and a new `routingKey` and `genieKey`; the old ones are refused from the next request on. The rate-limit budget stays with the integration.' },
      { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await integrations.rotateToken(principalOf(req).orgId, actorOf(req), req.params.id) }));

  app.get('/integrations/:id/rejections', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'Recently refused payloads',
      description: 'The last 50 payloads this integration refused, newest first and paged like every list, with the error the sender got — to see why a sender\'s alerts are not arriving. Repeated 401 (disabled) and 429 refusals are logged once a minute; all are counted in `rejectedCount`.',
    }, { params: IdParams, querystring: RejectionListQuery, response: { 200: RejectionList } }),
  }, (req) => integrations.rejections(principalOf(req).orgId, req.params.id, { limit: req.query.limit ?? 25, cursor: req.query.cursor }));

  app.delete('/integrations/:id', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Delete an integration', description: 'Its token stops working at once; its alerts are kept.' },
      { params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }) } }),
  }, async (req, reply) => {
    await integrations.remove(principalOf(req).orgId, actorOf(req), req.params.id);
    return reply.code(204).send(null);
  });
}

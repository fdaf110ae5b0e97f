import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { CreateIntegrationBody, Integration, IntegrationList, IntegrationListQuery, UpdateIntegrationBody } from './integrations-schemas.ts';
import type { IntegrationsService } from './integrations-service.ts';

const One = Type.Object({ data: Integration }, { additionalProperties: false });

export function integrationsRoutes(app: Api, integrations: IntegrationsService): void {
  const read = { scope: 'integrations:read', tag: 'integrations' } as const;
  const write = { scope: 'integrations:write', tag: 'integrations' } as const;

  app.get('/integrations', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List integrations' }, { querystring: IntegrationListQuery, response: { 200: IntegrationList } }),
  }, (req) => integrations.list(principalOf(req).orgId, { limit: req.query.limit ?? 25, cursor: req.query.cursor }));

  app.post('/integrations', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Create an integration', description: 'Returns its ingest token and URL.' },
      { body: CreateIntegrationBody, response: { 201: One } }),
  }, async (req, reply) => reply.code(201).send({ data: await integrations.create(principalOf(req).orgId, actorOf(req), req.body) }));

  app.get('/integrations/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get an integration' }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await integrations.get(principalOf(req).orgId, req.params.id) }));

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

  app.delete('/integrations/:id', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Delete an integration', description: 'Its token stops working at once; its alerts are kept.' },
      { params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }) } }),
  }, async (req, reply) => {
    await integrations.remove(principalOf(req).orgId, actorOf(req), req.params.id);
    return reply.code(204).send(null);
  });
}

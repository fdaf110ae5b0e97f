import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, conflictResponse, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { Client, ClientList, ClientListQuery, CreateClientBody, UpdateClientBody } from './clients-schemas.ts';
import type { ClientsService } from './clients-service.ts';

const One = Type.Object({ data: Client }, { additionalProperties: false });

export function clientsRoutes(app: Api, clients: ClientsService): void {
  const read = { scope: 'clients:read', tag: 'clients' } as const;
  const write = { scope: 'clients:write', tag: 'clients' } as const;

  app.get('/clients', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List clients', description: 'The organization\'s customers, newest first.' },
      { querystring: ClientListQuery, response: { 200: ClientList } }),
  }, (req) => clients.list(principalOf(req).orgId, { limit: req.query.limit ?? 25, cursor: req.query.cursor }));

  app.post('/clients', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Create a client', description: 'A slug already used in the organization is 409 CONFLICT.' },
      { body: CreateClientBody, response: { 201: One, ...conflictResponse } }),
  }, async (req, reply) => reply.code(201).send({ data: await clients.create(principalOf(req).orgId, actorOf(req), req.body) }));

  app.get('/clients/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get a client' }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await clients.get(principalOf(req).orgId, req.params.id) }));

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/clients/:id',
      config: { scope: write.scope },
      schema: apiSchema({
        ...write,
        summary: method === 'PUT' ? 'Update a client' : 'Update a client (synonym of PUT)',
        description: 'Partial: fields left out stay as they are; `null` clears `contactEmail` or `notes`. A slug already used in the organization is 409 CONFLICT.',
      }, { params: IdParams, body: UpdateClientBody, response: { 200: One, ...conflictResponse } }),
      handler: async (req) => ({ data: await clients.update(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }),
    });
  }

  app.delete('/clients/:id', {
    config: { scope: write.scope },
    schema: apiSchema({
      ...write,
      summary: 'Delete a client',
      description: 'Its alerts and integrations are kept and no longer belong to a client. 409 CONFLICT while a suppression window is scoped to it: delete or re-scope those windows first.',
    }, { params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }), ...conflictResponse } }),
  }, async (req, reply) => {
    await clients.remove(principalOf(req).orgId, actorOf(req), req.params.id);
    return reply.code(204).send(null);
  });
}

import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import {
  CreateSuppressionBody, SuppressionList, SuppressionListQuery, SuppressionPreview, SuppressionWindow, UpdateSuppressionBody,
} from './suppression-schemas.ts';
import type { SuppressionService } from './suppression-service.ts';

const One = Type.Object({ data: SuppressionWindow }, { additionalProperties: false });

const ABOUT = 'A new firing alert that a window in force holds (its client, if the window has one, and every matcher) is stored '
  + '`suppressed`, the ingest action `suppressed`. When the window ends, is deleted or stops matching, the alerts it suppressed '
  + 'that are still suppressed return to `firing` (within `SUPPRESSION_SWEEP_SECONDS` of its end).';

export function suppressionRoutes(app: Api, suppression: SuppressionService): void {
  const read = { scope: 'suppression:read', tag: 'suppression' } as const;
  const write = { scope: 'suppression:write', tag: 'suppression' } as const;

  app.get('/suppression', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List suppression windows', description: 'Newest first, with whether each is in force now and its next occurrences.' },
      { querystring: SuppressionListQuery, response: { 200: SuppressionList } }),
  }, (req) => suppression.list(principalOf(req).orgId, { limit: req.query.limit ?? 25, cursor: req.query.cursor, clientId: req.query.clientId }));

  app.post('/suppression', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Create a suppression window', description: ABOUT }, { body: CreateSuppressionBody, response: { 201: One } }),
  }, async (req, reply) => reply.code(201).send({ data: await suppression.create(principalOf(req).orgId, actorOf(req), req.body) }));

  // Reads only: the same scope as listing windows.
  app.post('/suppression/preview', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'Preview a suppression window before saving it',
      description: 'A create body, checked exactly as `POST /suppression` checks it (400 for the same reasons), and what it would give: whether it '
        + 'would be in force now, its next occurrences, and the open alerts its client and matchers hold. Stores nothing.',
    }, { body: CreateSuppressionBody, response: { 200: SuppressionPreview } }),
  }, async (req) => ({ data: await suppression.preview(principalOf(req).orgId, req.body) }));

  app.get('/suppression/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get a suppression window', description: 'With whether it is in force now and its next occurrences.' },
      { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await suppression.get(principalOf(req).orgId, req.params.id) }));

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/suppression/:id',
      config: { scope: write.scope },
      schema: apiSchema({
        ...write,
        summary: method === 'PUT' ? 'Update a suppression window' : 'Update a suppression window (synonym of PUT)',
        description: 'Partial: fields left out stay as they are; the result is checked as a whole. Alerts the window suppresses and no longer holds return to `firing` at once.',
      }, { params: IdParams, body: UpdateSuppressionBody, response: { 200: One } }),
      handler: async (req) => ({ data: await suppression.update(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }),
    });
  }

  app.delete('/suppression/:id', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Delete a suppression window', description: 'The alerts it suppressed return to `firing` at once (unless another window in force holds them).' },
      { params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }) } }),
  }, async (req, reply) => {
    await suppression.remove(principalOf(req).orgId, actorOf(req), req.params.id);
    return reply.code(204).send(null);
  });
}

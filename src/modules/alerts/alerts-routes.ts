import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, conflictResponse, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { AlertDetail, AlertList, AlertListQuery, BulkBody, BulkResult } from './alerts-schemas.ts';
import type { AlertsService } from './alerts-service.ts';

const One = Type.Object({ data: AlertDetail }, { additionalProperties: false });

export function alertsRoutes(app: Api, alerts: AlertsService): void {
  const read = { scope: 'alerts:read', tag: 'alerts' } as const;
  const write = { scope: 'alerts:write', tag: 'alerts' } as const;

  app.get('/alerts', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List alerts', description: 'Newest first. Filters combine with AND.' }, { querystring: AlertListQuery, response: { 200: AlertList } }),
    // toAlert builds each alert field by field as the schema has it; fast-json-stringify's per-value branch checks
    // of the many nullable fields took twice JSON.stringify's time for a page of 25.
    serializerCompiler: () => (data) => JSON.stringify(data),
  }, (req) => alerts.list(principalOf(req).orgId, req.query));

  app.get('/alerts/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get an alert', description: 'Includes the last raw payload received.' }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await alerts.get(principalOf(req).orgId, req.params.id) }));

  app.post('/alerts/:id/acknowledge', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Acknowledge an alert', description: 'Repeating is a no-op 200; a resolved alert cannot be acknowledged (409).' },
      { params: IdParams, response: { 200: One, ...conflictResponse } }),
  }, async (req) => ({ data: await alerts.act(principalOf(req).orgId, actorOf(req), req.params.id, 'acknowledge') }));

  app.post('/alerts/:id/resolve', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Resolve an alert', description: 'Repeating is a no-op 200.' }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await alerts.act(principalOf(req).orgId, actorOf(req), req.params.id, 'resolve') }));

  app.post('/alerts/bulk', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Acknowledge or resolve up to 100 alerts', description: 'One result per id, in order: `ok` with the new status, or the code (NOT_FOUND, CONFLICT) that stopped it.' },
      { body: BulkBody, response: { 200: BulkResult } }),
  }, async (req) => ({ data: { results: await alerts.bulk(principalOf(req).orgId, actorOf(req), req.body.action, req.body.ids) } }));
}

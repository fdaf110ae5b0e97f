import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, conflictResponse, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { Incident, IncidentDetail, IncidentList, IncidentListQuery, UpdateIncidentBody } from './incidents-schemas.ts';
import type { IncidentsService } from './incidents-service.ts';

export function incidentsRoutes(app: Api, incidents: IncidentsService): void {
  const read = { scope: 'incidents:read', tag: 'incidents' } as const;
  const write = { scope: 'incidents:write', tag: 'incidents' } as const;

  app.get('/incidents', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List incidents', description: 'Newest first. Filters: `status` (comma list), `assigneeId`, `clientId`.' },
      { querystring: IncidentListQuery, response: { 200: IncidentList } }),
  }, (req) => incidents.list(principalOf(req).orgId, req.query));

  app.get('/incidents/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get an incident', description: 'With its alerts and its timeline (opened, alerts joined, status changes, assignments, notifications).' },
      { params: IdParams, response: { 200: Type.Object({ data: IncidentDetail }, { additionalProperties: false }) } }),
  }, async (req) => ({ data: await incidents.get(principalOf(req).orgId, req.params.id) }));

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/incidents/:id',
      config: { scope: write.scope },
      schema: apiSchema({
        ...write,
        summary: method === 'PUT' ? 'Update an incident' : 'Update an incident (synonym of PUT)',
        description: '`status` (`triggered` ↔ `acknowledged`, either → `resolved`; a resolved incident is final: 409) and `assigneeId` (a user of the organization, or null). Partial: fields left out stay as they are.',
      }, { params: IdParams, body: UpdateIncidentBody, response: { 200: Type.Object({ data: Incident }, { additionalProperties: false }), ...conflictResponse } }),
      handler: async (req) => ({ data: await incidents.update(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }),
    });
  }
}

import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, conflictResponse, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { ResponderBody } from '../escalations/escalations-schemas.ts';
import type { EscalationsService } from '../escalations/escalations-service.ts';
import { Incident, IncidentDetail, IncidentList, IncidentListQuery, NoteBody, SnoozeBody, TimelineEntry, UpdateIncidentBody } from './incidents-schemas.ts';
import type { IncidentsService } from './incidents-service.ts';

const One = Type.Object({ data: Incident }, { additionalProperties: false });

export function incidentsRoutes(app: Api, incidents: IncidentsService, escalations: Pick<EscalationsService, 'escalateNow' | 'addResponder'>): void {
  const read = { scope: 'incidents:read', tag: 'incidents' } as const;
  const write = { scope: 'incidents:write', tag: 'incidents' } as const;

  app.get('/incidents', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List incidents', description: 'Newest first. Filters: `status` (comma list), `assigneeId`, `clientId`, `mine` (the signed-in member\'s: assigned to them or paged them).' },
      { querystring: IncidentListQuery, response: { 200: IncidentList } }),
  }, (req) => {
    const p = principalOf(req);
    return incidents.list(p.orgId, req.query, p.keyId === null && p.actor.type === 'user' ? p.actor.id : null);
  });

  app.get('/incidents/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get an incident', description: 'With its alerts and its timeline (opened, alerts joined, status changes, assignments, notifications).' },
      { params: IdParams, response: { 200: Type.Object({ data: IncidentDetail }, { additionalProperties: false }) } }),
  }, async (req) => {
    const { orgId, actor } = principalOf(req);
    return { data: await incidents.get(orgId, req.params.id, actor.type === 'user' ? actor.id : null) };
  });

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/incidents/:id',
      config: { scope: write.scope },
      schema: apiSchema({
        ...write,
        summary: method === 'PUT' ? 'Update an incident' : 'Update an incident (synonym of PUT)',
        description: '`status` (`triggered` ↔ `acknowledged`, either → `resolved`; a resolved incident is final: 409), `assigneeId` (a user of the organization, or null; '
          + 'while it escalates, the escalation starts again from step 1 and pages the new assignee) and `severity` (a timeline entry and an audit event say who changed it). '
          + 'Partial: fields left out stay as they are.',
      }, { params: IdParams, body: UpdateIncidentBody, response: { 200: Type.Object({ data: Incident }, { additionalProperties: false }), ...conflictResponse } }),
      handler: async (req) => ({ data: await incidents.update(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }),
    });
  }

  app.post('/incidents/:id/notes', {
    config: { scope: write.scope },
    schema: apiSchema({
      ...write,
      summary: 'Add a note to an incident',
      description: 'A `note_added` entry on its timeline, with the author; the dashboard shows it as plain text. Audited as `incident.note_added` (its length, not its text). Allowed on a resolved incident too (a post-mortem remark).',
    }, { params: IdParams, body: NoteBody, response: { 201: Type.Object({ data: TimelineEntry }, { additionalProperties: false }) } }),
  }, async (req, reply) => reply.code(201).send({ data: await incidents.addNote(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }));

  app.post('/incidents/:id/escalate', {
    config: { scope: write.scope },
    schema: apiSchema({
      ...write,
      summary: 'Escalate an incident now',
      description: 'Its escalation\'s next step fires at once instead of after its delay (the steps after it follow as usual). A timeline entry `escalated` and an audit event `incident.escalated` say who asked. '
        + '409 when nobody is being paged: the incident is acknowledged or resolved, has no escalation under way, or its last step has paged (add a responder instead).',
    }, { params: IdParams, response: { 200: One, ...conflictResponse } }),
  }, async (req) => ({ data: await escalations.escalateNow(principalOf(req).orgId, actorOf(req), req.params.id) }));

  app.post('/incidents/:id/responders', {
    config: { scope: write.scope },
    schema: apiSchema({
      ...write,
      summary: 'Page a responder now',
      description: '`{"userId"}` pages that member now by their contact methods; `{"policyId"}` escalates the incident with that policy when it is triggered and not escalating, '
        + 'otherwise pages the policy\'s first step once, now. The pages carry acknowledge links; they go on (a member\'s later contact steps) until the incident is next acknowledged or resolved. '
        + 'Timeline entries `responder_added` and `responder_paged`, audit event `incident.responder_added`. A resolved incident: 409.',
    }, { params: IdParams, body: ResponderBody, response: { 200: One, ...conflictResponse } }),
  }, async (req) => ({ data: await escalations.addResponder(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }));

  app.post('/incidents/:id/snooze', {
    config: { scope: write.scope },
    schema: apiSchema({
      ...write,
      summary: 'Snooze an incident',
      description: 'Acknowledges it (its alerts too, and its escalation stops) for `minutes`; then, unless it was resolved or moved by hand meanwhile, it is triggered again and its escalation starts again from step 1, paging its assignee too. '
        + 'The end is a queued job: a restart keeps it. Snoozing again replaces the end. `snoozedUntil` shows it; timeline entry `snoozed`, audit event `incident.snoozed`. A resolved incident: 409.',
    }, { params: IdParams, body: SnoozeBody, response: { 200: One, ...conflictResponse } }),
  }, async (req) => ({ data: await incidents.snooze(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }));
}

import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, conflictResponse, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { CreatePolicyBody, EscalationPolicy, PolicyList, PolicyListQuery, UpdatePolicyBody } from './escalations-schemas.ts';
import type { EscalationsService } from './escalations-service.ts';

const One = Type.Object({ data: EscalationPolicy }, { additionalProperties: false });

const ABOUT = 'An escalation policy pages its steps in order until someone acknowledges or resolves the incident: each step pages its targets (a member by their contact methods, by email at their account address when they have none; a schedule\'s on-call at the moment the step fires; a channel), then waits `delayMinutes` before the next step; after the last, the whole policy runs again `repeat` times. A workflow starts it (`escalate` action, or `escalationPolicyId` on `create_incident`); acknowledging, resolving (API, dashboard, the page\'s link) stops it at once; reassigning restarts it, with the new assignee paged in step 1. Each page carries a signed link to acknowledge or resolve, valid 24 hours, usable once.';

export function escalationsRoutes(app: Api, escalations: EscalationsService): void {
  const read = { scope: 'escalations:read', tag: 'escalation-policies' } as const;
  const write = { scope: 'escalations:write', tag: 'escalation-policies' } as const;

  app.get('/escalation-policies', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List escalation policies', description: `${ABOUT} Newest first.` }, { querystring: PolicyListQuery, response: { 200: PolicyList } }),
  }, (req) => escalations.list(principalOf(req).orgId, req.query));

  app.post('/escalation-policies', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Create an escalation policy', description: `${ABOUT} Users and schedules named must be the organization's (400 naming the path); channel targets must match their channel's shape.` },
      { body: CreatePolicyBody, response: { 201: One } }),
  }, async (req, reply) => reply.code(201).send({ data: await escalations.create(principalOf(req).orgId, actorOf(req), req.body) }));

  app.get('/escalation-policies/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get an escalation policy' }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await escalations.get(principalOf(req).orgId, req.params.id) }));

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/escalation-policies/:id',
      config: { scope: write.scope },
      schema: apiSchema({
        ...write,
        summary: method === 'PUT' ? 'Update an escalation policy' : 'Update an escalation policy (synonym of PUT)',
        description: 'Partial: fields left out stay as they are. Escalations under way keep the policy as it was when they started.',
      }, { params: IdParams, body: UpdatePolicyBody, response: { 200: One } }),
      handler: async (req) => ({ data: await escalations.update(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }),
    });
  }

  app.delete('/escalation-policies/:id', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Delete an escalation policy', description: 'Refused (409, naming them) while a workflow uses the policy. Escalations under way finish with their copy of it.' },
      { params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }), ...conflictResponse } }),
  }, async (req, reply) => {
    await escalations.remove(principalOf(req).orgId, actorOf(req), req.params.id);
    return reply.code(204).send(null);
  });
}

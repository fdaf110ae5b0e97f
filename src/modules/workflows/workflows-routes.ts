import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import {
  CreateWorkflowBody, MASKED_SECRET, TestDraftBody, TestResult, TestWorkflowBody, UpdateWorkflowBody, Workflow, WorkflowList, WorkflowListQuery, WorkflowRunList,
} from './workflows-schemas.ts';
import type { WorkflowsService } from './workflows-service.ts';

const One = Type.Object({ data: Workflow }, { additionalProperties: false });

const RULES = 'Conditions and actions are checked when saved (400 naming each problem\'s path, e.g. `/conditions/all/1/value`, `/actions/2/url`): '
  + 'known fields and ops, RE2 regular expressions, template placeholders, an `assign` after a `create_incident`, users and schedules of the '
  + `organization. Webhook secrets are never returned (\`${MASKED_SECRET}\`); sending \`${MASKED_SECRET}\` back keeps the stored secret.`;

export function workflowsRoutes(app: Api, workflows: WorkflowsService): void {
  const read = { scope: 'workflows:read', tag: 'workflows' } as const;
  const write = { scope: 'workflows:write', tag: 'workflows' } as const;

  app.get('/workflows', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List workflows', description: 'Newest first.' }, { querystring: WorkflowListQuery, response: { 200: WorkflowList } }),
  }, (req) => workflows.list(principalOf(req).orgId, { limit: req.query.limit ?? 25, cursor: req.query.cursor }));

  app.post('/workflows', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Create a workflow', description: `Enabled unless \`enabled\` is false. ${RULES}` },
      { body: CreateWorkflowBody, response: { 201: One } }),
  }, async (req, reply) => reply.code(201).send({ data: await workflows.create(principalOf(req).orgId, actorOf(req), req.body) }));

  app.get('/workflows/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get a workflow' }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await workflows.get(principalOf(req).orgId, req.params.id) }));

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/workflows/:id',
      config: { scope: write.scope },
      schema: apiSchema({
        ...write,
        summary: method === 'PUT' ? 'Update a workflow' : 'Update a workflow (synonym of PUT)',
        description: `Partial: fields left out stay as they are; \`actions\`, when given, replace the whole list; \`conditions: null\` matches every alert. ${RULES}`,
      }, { params: IdParams, body: UpdateWorkflowBody, response: { 200: One } }),
      handler: async (req) => ({ data: await workflows.update(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }),
    });
  }

  app.delete('/workflows/:id', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Delete a workflow', description: 'Its runs are deleted with it; incidents it opened stay.' },
      { params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }) } }),
  }, async (req, reply) => {
    await workflows.remove(principalOf(req).orgId, actorOf(req), req.params.id);
    return reply.code(204).send(null);
  });

  for (const [action, enabled] of [['enable', true], ['disable', false]] as const) {
    app.post(`/workflows/:id/${action}`, {
      config: { scope: write.scope },
      schema: apiSchema({
        ...write,
        summary: enabled ? 'Enable a workflow' : 'Disable a workflow',
        description: enabled ? 'It runs on its trigger from now on. Enabling an enabled workflow is a no-op 200.' : 'It stops running. Disabling a disabled workflow is a no-op 200.',
      }, { params: IdParams, response: { 200: One } }),
    }, async (req) => ({ data: await (enabled ? workflows.enable : workflows.disable)(principalOf(req).orgId, actorOf(req), req.params.id) }));
  }

  app.post('/workflows/test', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'Dry-run an unsaved workflow on a sample alert',
      description: 'As `POST /workflows/{id}/test`, for conditions and actions not saved yet (an editor\'s): they are checked as saving '
        + 'checks them, with the same 400 naming each problem\'s path (e.g. `/conditions/all/1/value`, `/actions/2/url`, '
        + '`/actions/1/scheduleId` for a user, schedule or escalation policy not of the organization). Nothing is stored, sent or recorded.',
    }, { body: TestDraftBody, response: { 200: TestResult } }),
  }, async (req) => ({ data: await workflows.testDraft(principalOf(req).orgId, req.body) }));

  app.post('/workflows/:id/test', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'Dry-run a workflow on a sample alert',
      description: 'Whether the sample meets the conditions (whatever the trigger, enabled or not) and what each action would do to it, '
        + 'templates rendered; actions that change the alert are applied to the sample in order. Nothing is stored, sent or recorded, '
        + 'hence the read scope. `{{incident.number}}` renders empty: no incident exists.',
    }, { params: IdParams, body: TestWorkflowBody, response: { 200: TestResult } }),
  }, async (req) => ({ data: await workflows.test(principalOf(req).orgId, req.params.id, req.body) }));

  app.get('/workflows/:id/runs', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'List a workflow\'s runs',
      description: 'Newest first: per alert event the workflow ran on, whether the alert matched and each action\'s outcome (`queued`, `done`, `skipped`, `failed`, with a detail).',
    }, { params: IdParams, querystring: WorkflowListQuery, response: { 200: WorkflowRunList } }),
  }, (req) => workflows.runs(principalOf(req).orgId, req.params.id, { limit: req.query.limit ?? 25, cursor: req.query.cursor }));
}

import { Type, type Static, type TProperties, type TSchema } from 'typebox';
import { Nullable, StringEnum, Timestamp, UpdateBody } from '../../http/schemas.ts';
import { CONDITION_OPS, ConditionLeaf, type ConditionOp } from '../../lib/conditions.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';
import { SEVERITIES, STATUSES, type Severity } from '../alerts/alerts-fns.ts';
import { MASKED_SECRET, type ChannelTarget } from '../notifications/channels/channel.ts';
import { CHANNELS, channelsFor, type ChannelType } from '../notifications/channels/registry.ts';
import { shapesAbout } from '../notifications/channels/target-fns.ts';

export type { ConditionLeaf } from '../../lib/conditions.ts';

/** The alert events a workflow can run on (`alert.reopened`: a suppressed alert returned to `firing`). */
export const TRIGGERS = ['alert.created', 'alert.acknowledged', 'alert.resolved', 'alert.reopened'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export const ACTION_TYPES = ['create_incident', 'assign', 'email', 'webhook', 'notify', 'set_severity', 'add_labels', 'suppress', 'escalate'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** How deep conditions nest, counting the leaves: `any` → `all` → `not` → leaf is the deepest. */
export const MAX_CONDITION_DEPTH = 4;
/** Leaves in one workflow's conditions, all levels together. */
export const MAX_CONDITION_LEAVES = 50;
export const MAX_ACTIONS = 20;
export { MASKED_SECRET };
/** The channels a `notify` action may post to: those the registry allows in workflows. */
export const WORKFLOW_CHANNELS = channelsFor('workflow');
const NOTIFY_TARGET = `The channel's target: ${shapesAbout(WORKFLOW_CHANNELS.map((c) => [c, CHANNELS[c]]))}. Secrets are never returned: responses show \`${MASKED_SECRET}\`, which sent back keeps the stored secret of the same target.`;
const TargetFields = (description?: string) => Type.Unsafe<ChannelTarget>(Type.Record(Type.String(), Type.String({ maxLength: 2048 }), { maxProperties: 10, ...(description !== undefined && { description }) }));

// ---- Conditions ---------------------------------------------------------------------------------------

/** A condition: a leaf `{field, op, value}` or `{all: […]}`, `{any: […]}`, `{not: …}` over conditions. */
export type Condition = ConditionLeaf | { all: Condition[] } | { any: Condition[] } | { not: Condition };

const CONDITION_ABOUT = 'Exactly one of `{"all": [conditions]}` (every one holds), `{"any": [conditions]}` (at least one holds), '
  + '`{"not": condition}`, or a leaf `{"field", "op", "value"}` (the matchers of suppression windows). '
  + `Conditions nest at most ${MAX_CONDITION_DEPTH} levels deep counting the leaves (e.g. any → all → not → leaf), with at most `
  + `${MAX_CONDITION_LEAVES} leaves in all. OpenAPI 3.0 has no recursive inline schemas, so the levels are written out `
  + '(each has this same shape; the deepest can only be a leaf).';

/**
 * The condition shape, level by level (OpenAPI 3.0 cannot express recursion inline, and the shape is
 * repeated in every operation that carries a workflow, so nested levels are kept compact). Every key is
 * optional here: that exactly one form is used, the nesting limit and the leaf rules (a nested leaf's value
 * type included) are checked by `checkConditions`, which names the path of each problem. The deepest level
 * can only be a leaf and is left to `checkConditions` entirely (`{}`): nesting there is refused with a
 * message saying so, rather than "not an allowed field".
 */
function conditionLevel(levels: number, top: boolean): TSchema {
  if (levels === 1) return Type.Unknown({ description: 'A leaf {field, op, value}: the deepest level.' });
  const child = conditionLevel(levels - 1, false);
  const list = Type.Array(child, { minItems: 1, maxItems: MAX_CONDITION_LEAVES });
  return Type.Object(
    {
      all: Type.Optional(list),
      any: Type.Optional(list),
      not: Type.Optional(child),
      field: Type.Optional(top ? ConditionLeaf.properties.field : Type.String({ minLength: 1, maxLength: 520 })),
      op: Type.Optional(top ? ConditionLeaf.properties.op : Type.Unsafe<ConditionOp>({ type: 'string', enum: [...CONDITION_OPS] })),
      value: top ? ConditionLeaf.properties.value : Type.Optional(Type.Unknown()),
    },
    { additionalProperties: false, minProperties: 1, ...(top && { description: CONDITION_ABOUT }) },
  );
}
const conditionShape = conditionLevel(MAX_CONDITION_DEPTH, true);
/** As received: its structure is checked by `checkConditions`. */
export const ConditionInput = Type.Unsafe<unknown>(conditionShape);
/** As stored and returned: checked and normalized. */
export const ConditionSchema = Type.Unsafe<Condition>(conditionShape);

// ---- Actions ------------------------------------------------------------------------------------------

const kind = <T extends ActionType>(type: T) => StringEnum([type] as const);
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const Template = (description: string) => Type.String({ minLength: 1, maxLength: 500, description });
const TEMPLATE_ABOUT = 'Placeholders `{{alert.<field>}}`, `{{alert.labels.<key>}}`, `{{alert.annotations.<key>}}`, `{{incident.number}}`, `{{incident.title}}`.';
const FieldPath = Type.String({ minLength: 1, maxLength: 520, description: 'An alert field, `labels.<key>` or `annotations.<key>` (as condition fields).' });
const LabelValues = Type.Record(Type.String(), Type.String({ maxLength: 1024 }), {
  minProperties: 1,
  maxProperties: 50,
  description: `1–50 labels; values are templates (${TEMPLATE_ABOUT})`,
});

const obj = <P extends TProperties>(properties: P, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description && { description }) });

/** Request forms: optional fields get their defaults when stored. */
const actionIn = {
  create_incident: obj({
    type: kind('create_incident'),
    groupBy: Type.Optional(Type.Array(FieldPath, { maxItems: 5, description: 'Fields whose values group alerts into one open incident of this workflow (0–5; none: one open incident for the whole workflow).' })),
    title: Type.Optional(Template(`Incident title for a new incident, default \`{{alert.title}}\`. ${TEMPLATE_ABOUT}`)),
    escalationPolicyId: Type.Optional(Nullable(Id('An escalation policy of this organization: a newly opened incident starts escalating with it.'))),
    groupWaitSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600, description: 'How long a newly opened incident holds its first pages (the escalation\'s first step and the notify, email and webhook actions after this one) to collect a storm, as Alertmanager\'s `group_wait`; default 0. Whatever the wait, those actions page each person or target once per incident, not once per alert.' })),
  }, 'Joins the open incident of this workflow with the same group values, else opens one; the alert gets its incidentId. The actions after it page once per incident (docs/paging.md, "One page per storm").'),
  assign: obj({
    type: kind('assign'),
    scheduleId: Type.Optional(Nullable(Id('The incident goes to this schedule\'s current on-call.'))),
    userId: Type.Optional(Nullable(Id('The incident goes to this user.'))),
  }, 'Exactly one of scheduleId or userId, of this organization. Needs a create_incident action before it.'),
  email: obj({
    type: kind('email'),
    to: Type.Optional(Type.Array(Type.String({ format: 'email', maxLength: 320 }), { maxItems: 20 })),
    toOnCall: Type.Optional(Nullable(Id('A schedule: its current on-call also gets the email.'))),
    subject: Type.Optional(Type.String({ maxLength: 500, description: `Empty or absent: \`[SEVERITY] title\` (\`[RESOLVED] …\`, \`[ACKNOWLEDGED] …\` for such alerts). ${TEMPLATE_ABOUT}` })),
  }, 'At least one of to (up to 20 addresses) or toOnCall. The email carries the alert\'s description.'),
  webhook: obj({
    type: kind('webhook'),
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'http or https, without credentials.' }),
    secret: Type.String({ minLength: 1, maxLength: 256, description: `16–256 characters (checked when saved); the body is signed with HMAC-SHA256. Never returned: responses show \`${MASKED_SECRET}\`, and sending \`${MASKED_SECRET}\` back keeps the secret stored for a webhook to the same url.` }),
  }, 'POSTs the alert as JSON, signed, retried with backoff.'),
  notify: obj({ type: kind('notify'), channel: StringEnum(WORKFLOW_CHANNELS), target: TargetFields(NOTIFY_TARGET) },
    'Posts the alert to a channel (a team room, a push topic), retried with backoff like every notification.'),
  set_severity: obj({ type: kind('set_severity'), severity: StringEnum(SEVERITIES) }, 'Changes the alert\'s severity.'),
  add_labels: obj({ type: kind('add_labels'), labels: LabelValues }, 'Adds (or overwrites) labels of the alert.'),
  suppress: obj({ type: kind('suppress') }, 'Suppresses the alert.'),
  escalate: obj({ type: kind('escalate'), policyId: Id('An escalation policy of this organization.') },
    'Starts the policy for the incident of the create_incident action before it, unless that incident is acknowledged, resolved or escalating already.'),
};

/** Response forms: every field present, the webhook secret masked. */
const actionOut = {
  create_incident: obj({
    type: kind('create_incident'), groupBy: Type.Array(Type.String()), title: Type.String(), escalationPolicyId: Type.Optional(Nullable(Type.String())),
    groupWaitSeconds: Type.Optional(Type.Integer()),
  }),
  assign: obj({ type: kind('assign'), scheduleId: Nullable(Type.String()), userId: Nullable(Type.String()) }),
  email: obj({ type: kind('email'), to: Type.Array(Type.String()), toOnCall: Nullable(Type.String()), subject: Type.String({ description: 'Empty: the default subject.' }) }),
  webhook: obj({ type: kind('webhook'), url: Type.String(), secret: StringEnum([MASKED_SECRET] as const) }),
  notify: obj({ type: kind('notify'), channel: StringEnum(WORKFLOW_CHANNELS), target: TargetFields() }),
  set_severity: obj({ type: kind('set_severity'), severity: StringEnum(SEVERITIES) }),
  add_labels: obj({ type: kind('add_labels'), labels: Type.Record(Type.String(), Type.String()) }),
  suppress: obj({ type: kind('suppress') }),
  escalate: obj({ type: kind('escalate'), policyId: Type.String() }),
};

type InputOf<K extends ActionType> = Static<(typeof actionIn)[K]>;
export type WorkflowActionInput = { [K in ActionType]: InputOf<K> }[ActionType];

/**
 * Received actions: `oneOf` with a `discriminator` on `type`, so that validation checks only the form
 * `type` names and a bad field is reported once, at its own path (`/actions/2/url`).
 */
export const ActionInput = Type.Unsafe<WorkflowActionInput>({
  oneOf: ACTION_TYPES.map((t) => actionIn[t]),
  discriminator: { propertyName: 'type' },
  description: `One of the action forms, chosen by \`type\`: ${ACTION_TYPES.join(', ')}.`,
});

/** An action as stored (what the runner reads): defaults filled in, the webhook secret in clear. */
export type CreateIncidentAction = { type: 'create_incident'; groupBy: string[]; title: string; escalationPolicyId?: string | null; groupWaitSeconds?: number };
export type AssignAction = { type: 'assign'; scheduleId: string | null; userId: string | null };
export type EmailAction = { type: 'email'; to: string[]; toOnCall: string | null; subject: string };
export type WebhookAction = { type: 'webhook'; url: string; secret: string };
export type NotifyAction = { type: 'notify'; channel: ChannelType; target: ChannelTarget };
export type SetSeverityAction = { type: 'set_severity'; severity: Severity };
export type AddLabelsAction = { type: 'add_labels'; labels: Record<string, string> };
export type SuppressAction = { type: 'suppress' };
export type EscalateAction = { type: 'escalate'; policyId: string };
export type WorkflowAction = CreateIncidentAction | AssignAction | EmailAction | WebhookAction | NotifyAction | SetSeverityAction | AddLabelsAction | SuppressAction | EscalateAction;

export const ActionOutput = Type.Unsafe<WorkflowAction>({ anyOf: ACTION_TYPES.map((t) => actionOut[t]) });

// ---- Workflows ----------------------------------------------------------------------------------------

export const Workflow = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    trigger: StringEnum(TRIGGERS),
    conditions: Nullable(ConditionSchema),
    actions: Type.Array(ActionOutput),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type Workflow = Static<typeof Workflow>;

const editable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Nullable(Type.String({ maxLength: 4096 })),
  enabled: Type.Boolean({ description: 'Default true. Only enabled workflows run.' }),
  trigger: StringEnum(TRIGGERS, { description: 'The alert event the workflow runs on.' }),
  conditions: Nullable(ConditionInput),
  actions: Type.Array(ActionInput, { minItems: 1, maxItems: MAX_ACTIONS, description: `Run in order, 1–${MAX_ACTIONS}.` }),
};

export const CreateWorkflowBody = Type.Object(
  {
    name: editable.name,
    description: Type.Optional(editable.description),
    enabled: Type.Optional(editable.enabled),
    trigger: editable.trigger,
    conditions: Type.Optional(editable.conditions),
    actions: editable.actions,
  },
  { additionalProperties: false },
);
export type CreateWorkflowBody = Static<typeof CreateWorkflowBody>;

export const UpdateWorkflowBody = UpdateBody(editable);
export type UpdateWorkflowBody = Static<typeof UpdateWorkflowBody>;

export const WorkflowList = listOf(Workflow);
export const WorkflowListQuery = Type.Object(PageQuery);

// ---- Dry run ------------------------------------------------------------------------------------------

const StringMap = Type.Record(Type.String(), Type.String({ maxLength: 4096 }), { maxProperties: 200 });

export const SampleAlert = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 4096 }),
    severity: StringEnum(SEVERITIES),
    status: Type.Optional(StringEnum(STATUSES, { description: 'Default firing.' })),
    source: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 65_536 }))),
    fingerprint: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'Default: derived from title and source, as ingest does.' })),
    labels: Type.Optional(StringMap),
    annotations: Type.Optional(StringMap),
    clientId: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    integrationId: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  },
  { additionalProperties: false },
);
export type SampleAlert = Static<typeof SampleAlert>;

export const TestWorkflowBody = Type.Object({ alert: SampleAlert }, { additionalProperties: false });
export type TestWorkflowBody = Static<typeof TestWorkflowBody>;

/** A definition as the editor holds it before saving, and the sample to try it on. */
export const TestDraftBody = Type.Object(
  { conditions: Type.Optional(editable.conditions), actions: editable.actions, alert: SampleAlert },
  { additionalProperties: false },
);
export type TestDraftBody = Static<typeof TestDraftBody>;

export const PlannedAction = Type.Object(
  {
    index: Type.Integer({ description: 'Position in the workflow\'s actions, from 0.' }),
    type: StringEnum(ACTION_TYPES),
    description: Type.String({ description: 'What the action would do to the sample, templates rendered.' }),
  },
  { additionalProperties: false },
);
export type PlannedAction = Static<typeof PlannedAction>;

export const TestResult = Type.Object(
  {
    data: Type.Object(
      {
        matched: Type.Boolean({ description: 'Whether the sample meets the conditions.' }),
        actions: Type.Array(PlannedAction, { description: 'The actions that would run, in order; empty when not matched.' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type TestResult = Static<typeof TestResult>['data'];

// ---- Runs ---------------------------------------------------------------------------------------------

export const RUN_ACTION_STATUSES = ['queued', 'done', 'skipped', 'failed'] as const;
export type RunActionStatus = (typeof RUN_ACTION_STATUSES)[number];

export const RunAction = Type.Object(
  {
    index: Type.Integer({ description: 'Position in the workflow\'s actions, from 0.' }),
    type: StringEnum(ACTION_TYPES),
    status: StringEnum(RUN_ACTION_STATUSES),
    detail: Nullable(Type.String({ description: 'What happened: the incident joined, the address sent to, the error, why skipped.' })),
    incidentId: Nullable(Type.String({ description: 'For `create_incident`: the incident opened or joined (or that the alert was already in).' })),
  },
  { additionalProperties: false },
);
/** One action's outcome in a run, as the runner records it (`workflow_runs.actions` holds a list of them). */
export type RunAction = Static<typeof RunAction>;

export const WorkflowRun = Type.Object(
  {
    id: Type.String(),
    alertId: Type.String(),
    eventId: Type.String(),
    trigger: StringEnum(TRIGGERS),
    matched: Type.Boolean({ description: 'Whether the alert met the conditions; when not, no action ran.' }),
    actions: Type.Array(RunAction),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type WorkflowRun = Static<typeof WorkflowRun>;
export const WorkflowRunList = listOf(WorkflowRun);

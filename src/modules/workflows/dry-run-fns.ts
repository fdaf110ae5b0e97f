import { deriveFingerprint } from '../ingest/normalize-fns.ts';
import { channelOf } from '../notifications/channels/registry.ts';
import { matches } from './conditions-fns.ts';
import { readField, renderTemplate, type TemplateAlert, type TemplateContext } from './workflows-fns.ts';
import type { Condition, PlannedAction, SampleAlert, TestResult, WorkflowAction } from './workflows-schemas.ts';

/**
 * The dry run of `POST /workflows/{id}/test`: whether a sample alert meets the conditions and what each
 * action would do to it, with templates rendered. Pure: it changes nothing and sends nothing. Actions
 * that change the alert (set_severity, add_labels, suppress) are applied to the sample in order, so that
 * later actions render with their effect, as when the workflow runs.
 */

/** Display names of the users and schedules the actions name (absent: deleted since the workflow was saved). */
export interface Names {
  users: ReadonlyMap<string, { name: string; email: string }>;
  schedules: ReadonlyMap<string, string>;
}

/** The sample as an alert would be stored: status firing, fingerprint as ingest derives it, no labels. */
export function sampleSubject(s: SampleAlert): TemplateAlert {
  const source = s.source ?? null;
  return {
    id: null,
    title: s.title,
    severity: s.severity,
    status: s.status ?? 'firing',
    source,
    description: s.description ?? null,
    fingerprint: s.fingerprint ?? deriveFingerprint(s.title, source),
    clientId: s.clientId ?? null,
    integrationId: s.integrationId ?? null,
    labels: { ...s.labels },
    annotations: { ...s.annotations },
  };
}

const quoted = (s: string): string => JSON.stringify(s);

const STATUS_PREFIX: Readonly<Record<string, string>> = { resolved: '[RESOLVED] ', acknowledged: '[ACKNOWLEDGED] ' };
/** The subject of an email action without one (as notifications writes it): `[HIGH] title`. */
const defaultSubject = (alert: TemplateAlert): string =>
  `${Object.hasOwn(STATUS_PREFIX, alert.status) ? STATUS_PREFIX[alert.status] : ''}[${alert.severity.toUpperCase()}] ${alert.title}`;

function scheduleName(names: Names, id: string): string {
  const name = names.schedules.get(id);
  return name === undefined ? `schedule ${id} (not found)` : `schedule ${quoted(name)}`;
}

function userName(names: Names, id: string): string {
  const user = names.users.get(id);
  return user === undefined ? `user ${id} (not found)` : `user ${user.name} <${user.email}>`;
}

/** Sentence of one action applied to the current sample; may change the sample and the context. */
function describe(action: WorkflowAction, ctx: TemplateContext & { alert: TemplateAlert }, names: Names): string {
  const alert = ctx.alert;
  switch (action.type) {
    case 'create_incident': {
      const title = renderTemplate(action.title, ctx);
      ctx.incident = { number: null, title };
      if (action.groupBy.length === 0) return `create or join this workflow's open incident, titled ${quoted(title)}`;
      const groups = action.groupBy.map((f) => `${f}=${readField(alert, f) ?? '(absent)'}`).join(', ');
      return `create or join the incident grouped by ${groups}, titled ${quoted(title)}`;
    }
    case 'assign':
      return action.scheduleId !== null
        ? `assign the incident to the on-call of ${scheduleName(names, action.scheduleId)}`
        : `assign the incident to ${userName(names, action.userId as string)}`;
    case 'email': {
      const recipients = [...action.to];
      if (action.toOnCall !== null) recipients.push(`the on-call of ${scheduleName(names, action.toOnCall)}`);
      const last = recipients.pop() as string;
      const list = recipients.length > 0 ? `${recipients.join(', ')} and ${last}` : last;
      const subject = renderTemplate(action.subject, ctx).trim() || defaultSubject(alert);
      return `email ${list}, subject ${quoted(subject)}`;
    }
    case 'webhook':
      return `POST the alert as JSON, signed with HMAC-SHA256, to ${action.url}`;
    case 'notify': {
      const channel = channelOf(action.channel);
      return `post the alert to ${channel.label}: ${channel.describe(action.target)}`;
    }
    case 'set_severity': {
      const was = alert.severity;
      alert.severity = action.severity;
      return was === action.severity ? `set the severity to ${action.severity} (already so)` : `set the severity to ${action.severity} (was ${was})`;
    }
    case 'add_labels': {
      const rendered = Object.entries(action.labels).map(([k, v]) => [k, renderTemplate(v, ctx)] as const);
      alert.labels = { ...alert.labels, ...Object.fromEntries(rendered) };
      return `add labels ${rendered.map(([k, v]) => `${k}=${v}`).join(', ')}`;
    }
    case 'suppress':
      alert.status = 'suppressed';
      return 'suppress the alert';
    case 'escalate':
      return `start escalation policy ${action.policyId} for the incident, unless it is acknowledged, resolved or escalating already`;
  }
}

/** Whether the sample matches and, if it does, what each action would do. */
export function dryRun(workflow: { conditions: Condition | null; actions: readonly WorkflowAction[] }, sample: TemplateAlert, names: Names): TestResult {
  if (!matches(workflow.conditions, sample)) return { matched: false, actions: [] };
  const ctx: TemplateContext & { alert: TemplateAlert } = { alert: { ...sample, labels: { ...sample.labels } }, incident: null };
  const actions: PlannedAction[] = workflow.actions.map((a, index) => ({ index, type: a.type, description: describe(a, ctx, names) }));
  return { matched: true, actions };
}

import type { AllowList } from '../../infra/outbound.ts';
import type { ErrorDetail } from '../../lib/errors.ts';
import { CHANNELS, channelOf } from '../notifications/channels/registry.ts';
import { keepSecrets as keepTargetSecrets, maskTarget, targetProblems } from '../notifications/channels/target-fns.ts';
import { DEFAULT_EMAIL_SUBJECT, DEFAULT_INCIDENT_TITLE, parseFieldPath, templateErrors } from './workflows-fns.ts';
import { MASKED_SECRET, type WorkflowAction, type WorkflowActionInput } from './workflows-schemas.ts';

/**
 * Workflow actions beyond their schema: the rules that need more than one field, the stored form (defaults
 * filled in), and the secrets of webhook and notify targets, never shown and kept when sent back masked. The
 * targets are checked by their channel's own declaration (a webhook action's url and secret are a webhook
 * channel's target). Pure.
 */

/** An id an action names, to be checked against the organization's records. */
export interface Reference {
  kind: 'user' | 'schedule' | 'escalation_policy';
  id: string;
  path: string;
}

export type CheckedActions = { ok: true; actions: WorkflowAction[]; references: Reference[] } | { ok: false; errors: ErrorDetail[] };

const LABEL_KEY_MAX = 512;
/** Label keys that would name a prototype if the runner ever merged labels into a plain object. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Checks actions as validated by their schema and returns their stored form and the users and schedules
 * they name (whose existence the caller checks). A webhook secret sent as the mask stays the mask here;
 * `keepSecrets` replaces it with the stored one.
 */
export function checkActions(input: readonly WorkflowActionInput[], allow: AllowList, base = '/actions'): CheckedActions {
  const errors: ErrorDetail[] = [];
  const references: Reference[] = [];
  const actions: WorkflowAction[] = [];
  let incident = false;
  input.forEach((a, i) => {
    const at = `${base}/${i}`;
    switch (a.type) {
      case 'create_incident': {
        const groupBy = a.groupBy ?? [];
        groupBy.forEach((field, j) => {
          if (parseFieldPath(field) === null) errors.push({ path: `${at}/groupBy/${j}`, message: 'must be an alert field, labels.<key> or annotations.<key>' });
          else if (groupBy.indexOf(field) !== j) errors.push({ path: `${at}/groupBy/${j}`, message: 'is listed twice' });
        });
        const title = a.title ?? DEFAULT_INCIDENT_TITLE;
        errors.push(...templateErrors(title, `${at}/title`));
        const escalationPolicyId = a.escalationPolicyId ?? null;
        if (escalationPolicyId !== null) references.push({ kind: 'escalation_policy', id: escalationPolicyId, path: `${at}/escalationPolicyId` });
        const groupWaitSeconds = a.groupWaitSeconds ?? 0;
        actions.push({ type: 'create_incident', groupBy, title, ...(escalationPolicyId !== null && { escalationPolicyId }), ...(groupWaitSeconds > 0 && { groupWaitSeconds }) });
        incident = true;
        break;
      }
      case 'assign': {
        const scheduleId = a.scheduleId ?? null;
        const userId = a.userId ?? null;
        if ((scheduleId === null) === (userId === null)) errors.push({ path: at, message: 'needs exactly one of scheduleId or userId' });
        if (!incident) errors.push({ path: `${at}/type`, message: 'assign needs a create_incident action before it: it assigns that incident' });
        if (scheduleId !== null) references.push({ kind: 'schedule', id: scheduleId, path: `${at}/scheduleId` });
        if (userId !== null) references.push({ kind: 'user', id: userId, path: `${at}/userId` });
        actions.push({ type: 'assign', scheduleId, userId });
        break;
      }
      case 'email': {
        const to = a.to ?? [];
        const toOnCall = a.toOnCall ?? null;
        if (to.length === 0 && toOnCall === null) errors.push({ path: at, message: 'needs recipients: to (addresses), toOnCall (a schedule), or both' });
        if (toOnCall !== null) references.push({ kind: 'schedule', id: toOnCall, path: `${at}/toOnCall` });
        const subject = a.subject ?? DEFAULT_EMAIL_SUBJECT;
        errors.push(...templateErrors(subject, `${at}/subject`));
        actions.push({ type: 'email', to, toOnCall, subject });
        break;
      }
      case 'webhook':
        errors.push(...targetProblems(CHANNELS.webhook, { url: a.url, secret: a.secret }, allow, at));
        actions.push({ type: 'webhook', url: a.url, secret: a.secret });
        break;
      case 'notify':
        errors.push(...targetProblems(channelOf(a.channel), a.target, allow, `${at}/target`));
        actions.push({ type: 'notify', channel: a.channel, target: a.target });
        break;
      case 'set_severity':
        actions.push({ type: 'set_severity', severity: a.severity });
        break;
      case 'add_labels': {
        const labels: Record<string, string> = {};
        for (const [key, value] of Object.entries(a.labels)) {
          if (key === '' || key.length > LABEL_KEY_MAX || FORBIDDEN_KEYS.has(key)) {
            errors.push({ path: `${at}/labels/${key}`, message: `keys must be 1–${LABEL_KEY_MAX} characters and not __proto__, constructor or prototype` });
            continue;
          }
          errors.push(...templateErrors(value, `${at}/labels/${key}`));
          labels[key] = value;
        }
        actions.push({ type: 'add_labels', labels });
        break;
      }
      case 'suppress':
        actions.push({ type: 'suppress' });
        break;
      case 'escalate':
        if (!incident) errors.push({ path: `${at}/type`, message: 'escalate needs a create_incident action before it: it escalates that incident' });
        references.push({ kind: 'escalation_policy', id: a.policyId, path: `${at}/policyId` });
        actions.push({ type: 'escalate', policyId: a.policyId });
        break;
    }
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, actions, references };
}

export type KeptSecrets = { ok: true; actions: WorkflowAction[] } | { ok: false; errors: ErrorDetail[] };

/** The stored targets a masked secret may come from: the action at the same position first, then the others. */
const candidates = <A extends WorkflowAction>(stored: readonly WorkflowAction[], i: number, same: (s: WorkflowAction) => s is A): A[] => {
  const at = stored[i];
  return [...(at !== undefined && same(at) ? [at] : []), ...stored.filter(same)];
};

/**
 * Replaces each secret sent as the mask (a webhook's, a notify target's) by the one stored for the same
 * target (`keepSecrets` of the channel): the action at the same position if it is such a target, else the
 * first. Without one, the mask is refused, so the mask itself is never stored as a secret.
 */
export function keepSecrets(actions: readonly WorkflowAction[], stored: readonly WorkflowAction[], base = '/actions'): KeptSecrets {
  const errors: ErrorDetail[] = [];
  const kept = actions.map((a, i): WorkflowAction => {
    if (a.type === 'webhook') {
      const from = candidates(stored, i, (s): s is Extract<WorkflowAction, { type: 'webhook' }> => s.type === 'webhook').map((s) => ({ url: s.url, secret: s.secret }));
      const r = keepTargetSecrets(CHANNELS.webhook, { url: a.url, secret: a.secret }, from, `${base}/${i}`);
      if (!r.ok) errors.push(...r.errors);
      return r.ok ? { ...a, secret: r.target.secret as string } : a;
    }
    if (a.type === 'notify') {
      const from = candidates(stored, i, (s): s is Extract<WorkflowAction, { type: 'notify' }> => s.type === 'notify' && s.channel === a.channel).map((s) => s.target);
      const r = keepTargetSecrets(channelOf(a.channel), a.target, from, `${base}/${i}/target`);
      if (!r.ok) errors.push(...r.errors);
      return r.ok ? { ...a, target: r.target } : a;
    }
    return a;
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, actions: kept };
}

/** An action as responses show it: secrets masked. */
export function publicAction(a: WorkflowAction): WorkflowAction {
  if (a.type === 'webhook') return { ...a, secret: MASKED_SECRET };
  if (a.type === 'notify') return { ...a, target: maskTarget(channelOf(a.channel), a.target) };
  return a;
}

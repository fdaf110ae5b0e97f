import type { AlertListItem, CreateWorkflowBody, SampleAlert, Trigger, Workflow } from '../../api/types';

/** The condition forms of the contract (§5): a leaf, or all / any / not over conditions. */
export type Op = 'eq' | 'neq' | 'in' | 'nin' | 'contains' | 'startsWith' | 'exists' | 'matches';
export interface Leaf {
  field: string;
  op: Op;
  value?: string | string[] | boolean;
}
export type Condition = Leaf | { all: Condition[] } | { any: Condition[] } | { not: Condition };
export type ConditionKind = 'leaf' | 'all' | 'any' | 'not';

/** An action as the editor holds it: its `type` and the fields its form edits (see action-types.ts). */
export type ActionDraft = { type: string } & Record<string, unknown>;

export interface Draft {
  name: string;
  description: string;
  enabled: boolean;
  trigger: Trigger;
  conditions: Condition | null;
  actions: ActionDraft[];
}

export const TRIGGERS: { value: Trigger; label: string }[] = [
  { value: 'alert.created', label: 'An alert is created' },
  { value: 'alert.acknowledged', label: 'An alert is acknowledged' },
  { value: 'alert.resolved', label: 'An alert is resolved' },
  { value: 'alert.reopened', label: 'A suppressed alert fires again' },
];

export const OPS: { value: Op; label: string }[] = [
  { value: 'eq', label: 'equals' },
  { value: 'neq', label: 'does not equal' },
  { value: 'in', label: 'is one of' },
  { value: 'nin', label: 'is none of' },
  { value: 'contains', label: 'contains' },
  { value: 'startsWith', label: 'starts with' },
  { value: 'matches', label: 'matches (regular expression)' },
  { value: 'exists', label: 'is present / absent' },
];

/** The alert fields a condition can read, besides labels.<key> and annotations.<key>. */
export const ALERT_FIELDS = ['title', 'severity', 'status', 'source', 'description', 'fingerprint', 'clientId', 'integrationId', 'flapping'];

export function kindOf(c: Condition): ConditionKind {
  if ('all' in c) return 'all';
  if ('any' in c) return 'any';
  if ('not' in c) return 'not';
  return 'leaf';
}

export const blankLeaf = (): Leaf => ({ field: '', op: 'eq', value: '' });

/** The value a leaf keeps when its op changes: a list for in / nin, a boolean for exists, else text. */
export function valueFor(op: Op, value: Leaf['value']): Leaf['value'] {
  const list = Array.isArray(value) ? value : typeof value === 'string' && value !== '' ? [value] : [];
  if (op === 'in' || op === 'nin') return list;
  if (op === 'exists') return typeof value === 'boolean' ? value : true;
  return Array.isArray(value) ? (value[0] ?? '') : typeof value === 'string' ? value : '';
}

/** Turns a condition into another form, keeping what can be kept (a group's first member, a not's inner condition). */
export function convert(c: Condition, to: ConditionKind): Condition {
  const from = kindOf(c);
  if (from === to) return c;
  const members = 'all' in c ? c.all : 'any' in c ? c.any : [c];
  const inner = 'not' in c ? c.not : members[0] ?? blankLeaf();
  if (to === 'leaf') return kindOf(inner) === 'leaf' ? inner : blankLeaf();
  if (to === 'not') return { not: from === 'leaf' ? c : inner };
  const list = from === 'not' ? [inner] : members;
  return to === 'all' ? { all: list } : { any: list };
}

export function draftOf(w: Workflow | null): Draft {
  if (!w) return { name: '', description: '', enabled: false, trigger: 'alert.created', conditions: null, actions: [{ type: 'create_incident', groupBy: [], title: '{{alert.title}}' }] };
  return {
    name: w.name,
    description: w.description ?? '',
    enabled: w.enabled,
    trigger: w.trigger,
    conditions: w.conditions as Condition | null,
    actions: w.actions as ActionDraft[],
  };
}

/** Empty optional fields (a blank subject, no schedule) are left out, so that the API fills in its defaults. */
function actionBody(a: ActionDraft): ActionDraft {
  return Object.fromEntries(Object.entries(a).filter(([, v]) => v !== null && v !== '' && !(Array.isArray(v) && v.length === 0))) as ActionDraft;
}

export function bodyOf(d: Draft): CreateWorkflowBody {
  return {
    name: d.name,
    description: d.description.trim() === '' ? null : d.description,
    enabled: d.enabled,
    trigger: d.trigger,
    conditions: d.conditions,
    actions: d.actions.map(actionBody) as CreateWorkflowBody['actions'],
  };
}

/** A stored alert as a dry run's sample: the fields conditions and templates read. */
export function sampleOf(a: AlertListItem): SampleAlert {
  return {
    title: a.title,
    severity: a.severity,
    status: a.status,
    source: a.source,
    description: a.description,
    fingerprint: a.fingerprint,
    labels: a.labels,
    annotations: a.annotations,
    clientId: a.clientId,
    integrationId: a.integrationId,
  };
}

/** Condition fields to suggest: the alert fields, then the label and annotation keys seen on recent alerts. */
export function fieldSuggestions(alerts: readonly AlertListItem[]): string[] {
  const keys = new Set<string>();
  for (const a of alerts) {
    for (const k of Object.keys(a.labels)) keys.add(`labels.${k}`);
    for (const k of Object.keys(a.annotations)) keys.add(`annotations.${k}`);
  }
  return [...ALERT_FIELDS, ...[...keys].sort()];
}

/** Parses the JSON view; anything but an object with the definition's keys is refused in words. */
export function parseDraft(text: string, current: Draft): { ok: true; draft: Draft } | { ok: false; error: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `is not valid JSON: ${(e as Error).message}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, error: 'must be a JSON object' };
  const o = v as Record<string, unknown>;
  if (o.actions !== undefined && !Array.isArray(o.actions)) return { ok: false, error: 'must have actions as a list' };
  if (Array.isArray(o.actions) && o.actions.some((a) => typeof a !== 'object' || a === null || typeof (a as { type?: unknown }).type !== 'string')) {
    return { ok: false, error: 'must have each action as an object with a type' };
  }
  if (o.conditions !== undefined && o.conditions !== null && (typeof o.conditions !== 'object' || Array.isArray(o.conditions))) {
    return { ok: false, error: 'must have conditions as an object or null' };
  }
  return {
    ok: true,
    draft: {
      name: typeof o.name === 'string' ? o.name : current.name,
      description: typeof o.description === 'string' ? o.description : o.description === null ? '' : current.description,
      enabled: typeof o.enabled === 'boolean' ? o.enabled : current.enabled,
      // An unknown trigger is kept for the API to refuse in words.
      trigger: typeof o.trigger === 'string' ? (o.trigger as Trigger) : current.trigger,
      conditions: o.conditions === undefined ? current.conditions : (o.conditions as Condition | null),
      actions: Array.isArray(o.actions) ? (o.actions as ActionDraft[]) : current.actions,
    },
  };
}

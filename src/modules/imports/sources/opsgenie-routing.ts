import type { Condition, ConditionLeaf } from '../../workflows/workflows-schemas.ts';
import type { SourceModel } from '../imports-model.ts';
import { arr, obj, str, type Json } from './source.ts';

/**
 * Opsgenie team routing rules as AlertFlow workflows, from opsgenie/opsgenie-oas `definitions/teamRoutingRule.yaml`
 * (TeamRoutingRule: order, criteria, timeRestriction, notify) and `common.yaml` (Filter, Condition). Opsgenie
 * takes the first rule that matches; AlertFlow runs every workflow that matches, so each rule's workflow also
 * says "and none of the rules before it matched". Pure.
 */

/**
 * Opsgenie's alert fields where AlertFlow's Opsgenie Alert API puts them (src/modules/inbound/opsgenie-fns.ts):
 * alias is the fingerprint, entity and each detail a label, the tags one comma-separated label `tags`.
 */
const FIELDS: Record<string, string> = { message: 'title', description: 'description', source: 'source', alias: 'fingerprint', entity: 'labels.entity' };
const PRIORITY_SEVERITY: Record<string, string> = { P1: 'critical', P2: 'high', P3: 'medium', P4: 'low', P5: 'info' };

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One condition negated: a leaf by its opposite operation where there is one, a negation by what it negated. */
function negated(c: Condition): Condition {
  if ('not' in c) return c.not;
  if (!('field' in c)) return { not: c };
  if (c.op === 'eq') return { ...c, op: 'neq' };
  if (c.op === 'in') return { ...c, op: 'nin' };
  if (c.op === 'exists') return { ...c, value: c.value === false };
  return { not: c };
}

/** One Opsgenie condition as a leaf (negated when `not`), or why it cannot be. */
export function conditionOf(c: Json): { ok: true; condition: Condition } | { ok: false; why: string } {
  const field = str(c.field) ?? '';
  const op = str(c.operation) ?? '';
  const value = str(c.expectedValue) ?? '';
  const key = str(c.key);
  let leaf: ConditionLeaf | null = null;
  if (field === 'priority' && op === 'equals' && PRIORITY_SEVERITY[value]) leaf = { field: 'severity', op: 'eq', value: PRIORITY_SEVERITY[value] as string };
  else if (field === 'tags' && op === 'contains') leaf = { field: 'labels.tags', op: 'matches', value: `(^|,)${escapeRe(value)}(,|$)` };
  else {
    const target = FIELDS[field] ?? ((field === 'details' || field === 'extra-properties') && key ? `labels.${key}` : null);
    if (target === null && (field === 'details' || field === 'extra-properties') && op === 'contains-key') leaf = { field: `labels.${value}`, op: 'exists', value: true };
    else if (target !== null) {
      if (op === 'equals') leaf = { field: target, op: 'eq', value };
      else if (op === 'contains') leaf = { field: target, op: 'contains', value };
      else if (op === 'starts-with') leaf = { field: target, op: 'startsWith', value };
      else if (op === 'ends-with') leaf = { field: target, op: 'matches', value: `${escapeRe(value)}$` };
      // Opsgenie's "matches" is a Java regular expression over the whole value.
      else if (op === 'matches') leaf = { field: target, op: 'matches', value: `^(?:${value})$` };
    }
  }
  if (leaf === null) return { ok: false, why: `its condition "${field} ${op}${value ? ` ${value}` : ''}" has no AlertFlow equivalent` };
  return { ok: true, condition: c.not === true ? negated(leaf) : leaf };
}

/**
 * "Not `c`" as conditions that all must hold, pushed down to the leaves (not any = all not; not all = any not),
 * so that a rule's workflow stays within AlertFlow's nesting limit however many rules come before it.
 */
export function noneOf(c: Condition): Condition[] {
  if ('any' in c) return c.any.map(negated);
  if ('all' in c) return [{ any: c.all.map(negated) }];
  return [negated(c)];
}

/** A `Filter` as a condition: null for match-all. */
export function criteriaOf(f: Json): { ok: true; condition: Condition | null } | { ok: false; why: string } {
  const type = str(f.type) ?? 'match-all';
  if (type === 'match-all') return { ok: true, condition: null };
  const parts: Condition[] = [];
  for (const c of arr(f.conditions)) {
    const one = conditionOf(c);
    if (!one.ok) return one;
    parts.push(one.condition);
  }
  if (parts.length === 1) return { ok: true, condition: parts[0] as Condition };
  return { ok: true, condition: type === 'match-any-condition' ? { any: parts } : { all: parts } };
}

/**
 * The routes of one team: its integrations' alerts go, rule by rule in order, to the escalation (or schedule,
 * through a one-step policy `schedule:<id>` the caller provides) the rule notifies.
 */
export function teamRoutes(model: SourceModel, team: Json, rules: Json[], integrations: string[], scheduleTargets: (scheduleId: string) => string | null): void {
  const teamName = str(team.name) ?? str(team.id) ?? '';
  const earlier: Condition[] = [];
  let catchAll = false;
  for (const rule of [...rules].sort((a, b) => Number(a.order ?? 0) - Number(b.order ?? 0))) {
    const sourceId = `${str(team.id)}/${str(rule.id)}`;
    const name = `${teamName}: ${str(rule.name) ?? (rule.isDefault === true ? 'default' : str(rule.id))}`;
    const where = { kind: 'routing_rule', sourceId, name };
    if (catchAll) {
      model.skips.push({ ...where, reason: 'never reached: a rule before it takes every alert' });
      continue;
    }
    if (rule.timeRestriction) {
      model.skips.push({ ...where, reason: 'applies at some times only: AlertFlow workflows cannot look at the time, so alerts go on to the next rule' });
      continue;
    }
    const criteria = criteriaOf(obj(rule.criteria));
    if (!criteria.ok) {
      model.skips.push({ ...where, reason: `${criteria.why}, so its alerts go on to the next rule` });
      continue;
    }
    const notify = obj(rule.notify);
    const type = str(notify.type) ?? 'none';
    const policy = type === 'escalation' ? str(notify.id) : type === 'schedule' ? scheduleTargets(str(notify.id) ?? '') : null;
    if (policy === null) model.skips.push({ ...where, reason: type === 'none' ? 'notifies nobody, so no workflow is needed' : `notifies a ${type} that is not imported` });
    else {
      const own = criteria.condition === null ? [] : 'all' in criteria.condition ? criteria.condition.all : [criteria.condition];
      const parts = [...own, ...earlier.flatMap(noneOf)];
      model.routes.push({
        sourceId, name, integrations, policy,
        description: `Imported from the Opsgenie routing rule "${name}" (order ${String(rule.order ?? 0)}).`,
        conditions: parts.length === 0 ? null : parts.length === 1 ? parts[0] as Condition : { all: parts },
      });
    }
    if (criteria.condition === null) catchAll = true;
    else earlier.push(criteria.condition);
  }
}

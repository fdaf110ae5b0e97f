import { CONDITION_OPS, evaluateLeaf, normalizeLeaf, validateLeaf, type ConditionLeaf, type ConditionOp, type ConditionSubject } from '../../lib/conditions.ts';
import type { ErrorDetail } from '../../lib/errors.ts';
import { MAX_CONDITION_DEPTH, MAX_CONDITION_LEAVES, type Condition } from './workflows-schemas.ts';

/**
 * Workflow conditions (contract §5): `{all: […]}`, `{any: […]}`, `{not: …}` over the condition leaves of
 * src/lib/conditions.ts (whose evaluation, RE2 `matches` included, is reused as it is). Pure: no I/O.
 *
 * `all` holds when every condition in it holds, `any` when at least one does, `not` when its condition does
 * not; lists are never empty. No conditions (null) hold for every alert. The nesting depth (counting leaves)
 * and the number of leaves are bounded, so evaluation is bounded too: each leaf is evaluated at most once per
 * alert, `matches` in time linear in the value.
 */

export type CheckedConditions = { ok: true; conditions: Condition | null } | { ok: false; errors: ErrorDetail[] };

const COMPOSITES = ['all', 'any', 'not'] as const;
const LEAF_KEYS = ['field', 'op', 'value'];
const MAX_ERRORS = 50;
const FORMS = 'must be exactly one of {"all": […]}, {"any": […]}, {"not": …} or a leaf {"field", "op", "value"}';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checks conditions as received (anything) and returns their stored form (`exists` leaves carry their
 * boolean), or every problem with its path under `path` (`/conditions/all/1/value`): the form, the nesting
 * depth, the leaf count, and each leaf's field, op, value and regular expression.
 */
export function checkConditions(input: unknown, path = '/conditions'): CheckedConditions {
  if (input === null || input === undefined) return { ok: true, conditions: null };
  const errors: ErrorDetail[] = [];
  let leaves = 0;
  const fail = (at: string, message: string): null => {
    if (errors.length < MAX_ERRORS) errors.push({ path: at, message });
    return null;
  };

  function leaf(node: Record<string, unknown>, at: string): Condition | null {
    leaves += 1;
    const { field, op, value } = node;
    if (typeof field !== 'string' || field === '') return fail(`${at}/field`, 'is required: an alert field, labels.<key> or annotations.<key>');
    if (typeof op !== 'string' || !(CONDITION_OPS as readonly string[]).includes(op)) return fail(`${at}/op`, `must be one of ${CONDITION_OPS.join(', ')}`);
    const okValue = value === undefined || typeof value === 'string' || typeof value === 'boolean'
      || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
    if (!okValue) return fail(`${at}/value`, 'must be a string, a list of strings or a boolean');
    const candidate = { field, op: op as ConditionOp, ...(value !== undefined && { value }) } as ConditionLeaf;
    const problems = validateLeaf(candidate, at);
    if (problems.length > 0) {
      problems.forEach((p) => fail(p.path, p.message));
      return null;
    }
    return normalizeLeaf(candidate);
  }

  function walk(node: unknown, at: string, depth: number): Condition | null {
    if (!isRecord(node)) return fail(at, FORMS);
    const stray = Object.keys(node).find((k) => !(COMPOSITES as readonly string[]).includes(k) && !LEAF_KEYS.includes(k));
    if (stray !== undefined) return fail(`${at}/${stray}`, 'is not an allowed field');
    const forms = COMPOSITES.filter((k) => Object.hasOwn(node, k));
    const isLeaf = LEAF_KEYS.some((k) => Object.hasOwn(node, k));
    if (forms.length + (isLeaf ? 1 : 0) !== 1) return fail(at, FORMS);
    if (isLeaf) return leaf(node, at);
    const form = forms[0] as (typeof COMPOSITES)[number];
    if (depth >= MAX_CONDITION_DEPTH) {
      return fail(at, `nests too deeply: conditions nest at most ${MAX_CONDITION_DEPTH} levels, counting the leaves (e.g. any → all → not → leaf)`);
    }
    if (form === 'not') {
      const inner = walk(node.not, `${at}/not`, depth + 1);
      return inner && { not: inner };
    }
    const list = node[form];
    if (!Array.isArray(list) || list.length === 0) return fail(`${at}/${form}`, 'must be a non-empty list of conditions');
    const items = list.map((c, i) => walk(c, `${at}/${form}/${i}`, depth + 1));
    if (items.some((c) => c === null)) return null;
    return form === 'all' ? { all: items as Condition[] } : { any: items as Condition[] };
  }

  const conditions = walk(input, path, 1);
  if (leaves > MAX_CONDITION_LEAVES) fail(path, `has ${leaves} leaf conditions; at most ${MAX_CONDITION_LEAVES} are allowed`);
  return errors.length > 0 || conditions === null ? { ok: false, errors } : { ok: true, conditions };
}

/** Whether the alert meets the (checked) conditions; null or undefined conditions hold for every alert. */
export function matches(conditions: Condition | null | undefined, alert: ConditionSubject): boolean {
  if (conditions === null || conditions === undefined) return true;
  if (Object.hasOwn(conditions, 'all')) return (conditions as { all: Condition[] }).all.every((c) => matches(c, alert));
  if (Object.hasOwn(conditions, 'any')) return (conditions as { any: Condition[] }).any.some((c) => matches(c, alert));
  if (Object.hasOwn(conditions, 'not')) return !matches((conditions as { not: Condition }).not, alert);
  return evaluateLeaf(conditions as ConditionLeaf, alert);
}

/** Whether the (checked) conditions name `field` anywhere: a workflow that names `flapping` acts on flapping alerts. */
export function namesField(conditions: Condition | null | undefined, field: string): boolean {
  if (conditions === null || conditions === undefined) return false;
  if (Object.hasOwn(conditions, 'all')) return (conditions as { all: Condition[] }).all.some((c) => namesField(c, field));
  if (Object.hasOwn(conditions, 'any')) return (conditions as { any: Condition[] }).any.some((c) => namesField(c, field));
  if (Object.hasOwn(conditions, 'not')) return namesField((conditions as { not: Condition }).not, field);
  return (conditions as ConditionLeaf).field === field;
}

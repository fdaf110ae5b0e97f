import { RE2JS } from 're2js';
import { Type, type Static } from 'typebox';
import type { ErrorDetail } from './errors.ts';

/**
 * Condition leaves `{field, op, value}` over an alert (contract §5): suppression window matchers are a list
 * of them, all of which must hold; workflow conditions combine them with all / any / not. Pure: no I/O.
 *
 * A field that is absent (a label or annotation the alert does not have, or an alert field that is null)
 * makes `eq`, `in`, `contains`, `startsWith` and `matches` false, and their negations `neq` and `nin` true,
 * so that `neq` is exactly "not `eq`" (as Alertmanager's `!=`). `exists` with `value` true (the default)
 * holds when the field is present, even when empty; with `value` false, when it is absent. Comparisons are
 * case-sensitive. `matches` is a regular expression (RE2 syntax, linear time whatever the input, so a
 * pattern cannot stall ingest) that may match anywhere in the value; anchor it with `^…$` to match the whole.
 */

export const CONDITION_OPS = ['eq', 'neq', 'in', 'nin', 'contains', 'startsWith', 'exists', 'matches'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** The alert fields a condition can name, besides `labels.<key>` and `annotations.<key>`. */
export const CONDITION_FIELDS = ['title', 'severity', 'status', 'source', 'description', 'fingerprint', 'clientId', 'integrationId', 'flapping'] as const;
type AlertField = (typeof CONDITION_FIELDS)[number];

const MAX_VALUE = 1024;
const MAX_LIST = 100;
const MAX_PROGRAM = 1000;

export const ConditionLeaf = Type.Object(
  {
    field: Type.String({
      minLength: 1,
      maxLength: 520,
      description: `One of ${CONDITION_FIELDS.join(', ')}, or \`labels.<key>\` / \`annotations.<key>\`.`,
    }),
    op: Type.Unsafe<ConditionOp>({
      type: 'string',
      enum: [...CONDITION_OPS],
      description: '`eq`, `neq`, `contains`, `startsWith`, `matches` (RE2 regular expression, matches anywhere; anchor with ^…$) take a string; '
        + '`in`, `nin` a list of strings; `exists` a boolean (default true). An absent field fails every op except `neq`, `nin` and `exists: false`.',
    }),
    value: Type.Optional(Type.Union([
      Type.String({ maxLength: MAX_VALUE }),
      Type.Array(Type.String({ maxLength: MAX_VALUE }), { minItems: 1, maxItems: MAX_LIST }),
      Type.Boolean(),
    ])),
  },
  { additionalProperties: false },
);
export type ConditionLeaf = Static<typeof ConditionLeaf>;

/** What a condition reads of an alert. */
export interface ConditionSubject {
  title: string;
  severity: string;
  status: string;
  source: string | null;
  description: string | null;
  fingerprint: string;
  clientId: string | null;
  integrationId: string | null;
  /** `true` while the alert's fingerprint flaps (docs/paging.md, "Flapping alerts"), else `false`; absent for an alert not yet stored. */
  flapping?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

type FieldRef = { kind: 'alert'; name: AlertField } | { kind: 'labels' | 'annotations'; key: string };

function fieldRef(field: string): FieldRef | null {
  if ((CONDITION_FIELDS as readonly string[]).includes(field)) return { kind: 'alert', name: field as AlertField };
  for (const kind of ['labels', 'annotations'] as const) {
    if (field.startsWith(`${kind}.`) && field.length > kind.length + 1) return { kind, key: field.slice(kind.length + 1) };
  }
  return null;
}

function fieldValue(subject: ConditionSubject, field: string): string | undefined {
  const ref = fieldRef(field);
  if (ref === null) return undefined;
  if (ref.kind === 'alert') return subject[ref.name] ?? undefined;
  const map = subject[ref.kind];
  // Own keys only: a label named `constructor` or `__proto__` is data, never an inherited property.
  return Object.hasOwn(map, ref.key) ? map[ref.key] : undefined;
}

// Compiled patterns, shared by every evaluation; bounded so that many distinct patterns cannot grow it forever.
const compiled = new Map<string, RE2JS>();
const MAX_COMPILED = 1000;

function regex(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

const stringOps: readonly ConditionOp[] = ['eq', 'neq', 'contains', 'startsWith', 'matches'];

/** Problems of one leaf beyond its schema, as `{path, message}` under `path` (e.g. `/matchers/0`). */
export function validateLeaf(leaf: ConditionLeaf, path: string): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  if (fieldRef(leaf.field) === null) {
    errors.push({ path: `${path}/field`, message: `must be one of ${CONDITION_FIELDS.join(', ')}, or labels.<key> / annotations.<key>` });
  }
  const v = leaf.value;
  if (stringOps.includes(leaf.op) && typeof v !== 'string') errors.push({ path: `${path}/value`, message: `must be a string for op ${leaf.op}` });
  if ((leaf.op === 'in' || leaf.op === 'nin') && !Array.isArray(v)) errors.push({ path: `${path}/value`, message: `must be a list of strings for op ${leaf.op}` });
  if (leaf.op === 'exists' && v !== undefined && typeof v !== 'boolean') errors.push({ path: `${path}/value`, message: 'must be a boolean for op exists' });
  if (leaf.op === 'matches' && typeof v === 'string') {
    try {
      // Matching is linear in the input times the pattern's program: a bound on the program bounds the work.
      const size = regex(v).programSize();
      if (size > MAX_PROGRAM) errors.push({ path: `${path}/value`, message: `is too complex a regular expression (RE2 program size ${size}, at most ${MAX_PROGRAM})` });
    } catch (err) {
      errors.push({ path: `${path}/value`, message: `is not a valid regular expression (RE2 syntax): ${(err as Error).message}` });
    }
  }
  return errors;
}

/** The stored form of a valid leaf: `exists` always carries its boolean. */
export const normalizeLeaf = (leaf: ConditionLeaf): ConditionLeaf =>
  leaf.op === 'exists' ? { field: leaf.field, op: 'exists', value: leaf.value ?? true } : { field: leaf.field, op: leaf.op, value: leaf.value };

/** Whether one (valid) leaf holds for the alert. */
export function evaluateLeaf(leaf: ConditionLeaf, subject: ConditionSubject): boolean {
  const actual = fieldValue(subject, leaf.field);
  const v = leaf.value;
  switch (leaf.op) {
    case 'exists':
      return (actual !== undefined) === (v !== false);
    case 'eq':
      return actual !== undefined && actual === v;
    case 'neq':
      return actual === undefined || actual !== v;
    case 'in':
      return actual !== undefined && (v as string[]).includes(actual);
    case 'nin':
      return actual === undefined || !(v as string[]).includes(actual);
    case 'contains':
      return actual !== undefined && actual.includes(v as string);
    case 'startsWith':
      return actual !== undefined && actual.startsWith(v as string);
    case 'matches':
      return actual !== undefined && regex(v as string).test(actual);
  }
}

/** Whether every leaf holds; an empty list holds for every alert. */
export const allLeavesHold = (leaves: readonly ConditionLeaf[], subject: ConditionSubject): boolean =>
  leaves.every((leaf) => evaluateLeaf(leaf, subject));

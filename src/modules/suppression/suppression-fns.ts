import { allLeavesHold, normalizeLeaf, validateLeaf, type ConditionLeaf, type ConditionSubject } from '../../lib/conditions.ts';
import type { ErrorDetail } from '../../lib/errors.ts';
import { WorkBudget } from '../../lib/work-budget.ts';
import { isActive, isValidTimezone, parseRecurrence, recurrenceProblem, type Schedule } from './recurrence-fns.ts';
import { UPCOMING } from './suppression-schemas.ts';

/** A suppression window as the rules see it: when it is in force, and which alerts it holds. */
export interface SuppressionWindow extends Schedule {
  id: string;
  matchers: ConditionLeaf[];
  /** Set: the window holds only alerts of this client. */
  clientId: string | null;
}

/** Whether a window is in force: asked once per window and request, since each answer walks its rule. */
export type InForce = (w: SuppressionWindow) => boolean;

/**
 * Whether windows are in force at `at`, each window's rule evaluated once however many alerts ask, all of
 * them with the work of one budget (a window past it counts as not in force).
 */
export function inForceAt(at: number, budget: WorkBudget = new WorkBudget()): InForce {
  const known = new Map<SuppressionWindow, boolean>();
  return (w) => {
    let active = known.get(w);
    if (active === undefined) {
      active = isActive(w, at, budget);
      known.set(w, active);
    }
    return active;
  };
}

/** Whether the window holds this alert: in force, the alert is of its client (if any), and every matcher holds. */
export function holds(w: SuppressionWindow, alert: ConditionSubject, inForce: InForce): boolean {
  if (w.clientId !== null && alert.clientId !== w.clientId) return false;
  return allLeavesHold(w.matchers, alert) && inForce(w);
}

/**
 * The window that suppresses a new firing alert, or null. With several, the first in `windows` order (the
 * repository gives oldest first, so the choice is stable).
 */
export function matchingWindow(windows: readonly SuppressionWindow[], alert: ConditionSubject, inForce: InForce): string | null {
  return windows.find((w) => holds(w, alert, inForce))?.id ?? null;
}

/**
 * Where an alert suppressed by `currentId` belongs: still that window if it holds the alert, else another
 * window that does, else null (the alert returns to firing).
 */
export function settle(windows: readonly SuppressionWindow[], alert: ConditionSubject, currentId: string, inForce: InForce): string | null {
  const current = windows.find((w) => w.id === currentId);
  if (current && holds(current, alert, inForce)) return current.id;
  return matchingWindow(windows, alert, inForce);
}

export interface WindowInput {
  startsAt: number;
  endsAt: number;
  timezone: string;
  recurrence: string | null;
  matchers: ConditionLeaf[];
}

export type CheckedWindow = { ok: true; window: WindowInput } | { ok: false; errors: ErrorDetail[] };

/**
 * Problems of the fields given, each on its own: an IANA time zone, a well-formed RRULE, valid matchers
 * (known fields, values of the op's type, RE2 patterns). What a partial update can be refused for before
 * its record is even read.
 */
export function fieldErrors(input: Partial<WindowInput>): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  if (input.timezone !== undefined && !isValidTimezone(input.timezone)) {
    errors.push({ path: '/timezone', message: 'must be an IANA time zone such as Europe/Berlin or UTC' });
  }
  if (input.recurrence !== undefined && input.recurrence !== null) {
    const parsed = parseRecurrence(input.recurrence);
    if (!parsed.ok) errors.push({ path: '/recurrence', message: parsed.message });
  }
  input.matchers?.forEach((leaf, i) => errors.push(...validateLeaf(leaf, `/matchers/${i}`)));
  return errors;
}

/**
 * Checks a whole window (a partial update once merged with its record): its fields, endsAt after startsAt,
 * and startsAt being the first occurrence of its recurrence. Returns the stored form (canonical RRULE,
 * matchers with every `exists` carrying its boolean).
 */
export function checkWindow(input: WindowInput): CheckedWindow {
  const errors = fieldErrors(input);
  if (Number.isNaN(input.startsAt)) errors.push({ path: '/startsAt', message: 'must be a date-time' });
  else if (Number.isNaN(input.endsAt) || !(input.endsAt > input.startsAt)) errors.push({ path: '/endsAt', message: 'must be a date-time after startsAt' });
  if (errors.length > 0) return { ok: false, errors };
  let recurrence: string | null = null;
  if (input.recurrence !== null) {
    const parsed = parseRecurrence(input.recurrence);
    recurrence = parsed.ok ? parsed.rule : null;
    const problem = recurrence === null ? null : recurrenceProblem({ ...input, recurrence }, UPCOMING);
    if (problem) return { ok: false, errors: [{ path: '/recurrence', message: problem }] };
  }
  return { ok: true, window: { ...input, recurrence, matchers: input.matchers.map(normalizeLeaf) } };
}

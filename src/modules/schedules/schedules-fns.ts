import type { ErrorDetail } from '../../lib/errors.ts';
import { WorkBudget, WorkLimitReached } from '../../lib/work-budget.ts';
import { isValidTimezone } from '../suppression/recurrence-fns.ts';
import { DAY_MS, layerSpans, type Layer, type Span } from './rotation-fns.ts';

/**
 * Who is on call when: the layers and overrides of a schedule merged into one timeline. Pure, on
 * instants (epoch milliseconds); the caller passes the time (`at`, `from`, `to`), so every rule here is
 * tested with an injected clock.
 *
 * Precedence: an override beats every layer (a later override beats an earlier one where they overlap);
 * a later layer beats an earlier one; where a later layer has nobody (before its start, outside its
 * restrictions) the earlier one shows through.
 */

export interface Override {
  userId: string;
  startsAt: number;
  /** Exclusive. */
  endsAt: number;
}

export interface OnCallSchedule {
  timezone: string;
  layers: Layer[];
  overrides: Override[];
}

export type Source = 'layer' | 'override';

/** A stretch of the merged timeline, with where its user comes from (all null while nobody is on call). */
export interface Piece extends Span {
  source: Source | null;
  /** Index of the layer, for source `layer`. */
  layer: number | null;
}

/** How far a run of one user is followed from the instant asked about before it counts as unbounded. */
export const RUN_HORIZON_MS = 366 * DAY_MS;
const FIRST_CHUNK_MS = 8 * DAY_MS;

const sameUser = (a: Piece, b: Piece): boolean => a.userId === b.userId;
const sameShift = (a: Piece, b: Piece): boolean => a.userId === b.userId && a.source === b.source && a.layer === b.layer;

/**
 * Which override holds each stretch of [from, to): the later override (by index) where several overlap.
 * Sorted, disjoint stretches with the override's user; time between them has no override.
 */
function overrideStretches(overrides: readonly Override[], from: number, to: number, budget?: WorkBudget): Array<{ start: number; end: number; userId: string }> {
  const bounds = [...new Set(overrides.flatMap((o) => [Math.max(o.startsAt, from), Math.min(o.endsAt, to)]))].sort((a, b) => a - b);
  budget?.spend(bounds.length * (1 + overrides.length));
  const out: Array<{ start: number; end: number; userId: string }> = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const start = bounds[i] as number;
    const o = overrides.findLast((x) => x.startsAt <= start && x.endsAt > start);
    if (o) out.push({ start, end: bounds[i + 1] as number, userId: o.userId });
  }
  return out;
}

/**
 * The merged timeline over [from, to): pieces that tile it exactly, adjacent ones differing in user or
 * source. With a budget, each layer's expansion and each cut of the timeline take work from it
 * (WorkLimitReached once it is spent).
 */
export function timeline(s: OnCallSchedule, from: number, to: number, budget?: WorkBudget): Piece[] {
  if (!(to > from)) return [];
  // A layer that has started by `from` and has no restrictions covers the whole range: those below it never show.
  const cover = s.layers.findLastIndex((l) => l.startsAt <= from && l.restrictions.length === 0);
  const layers = s.layers.map((l, i) => (i < cover ? [] : layerSpans(l, s.timezone, from, to, budget)));
  const overrides = overrideStretches(s.overrides.filter((o) => o.endsAt > from && o.startsAt < to && o.endsAt > o.startsAt), from, to, budget);
  const cuts = new Set<number>([from, to]);
  for (const spans of layers) for (const sp of spans) cuts.add(sp.start).add(sp.end);
  for (const o of overrides) cuts.add(o.start).add(o.end);
  budget?.spend(cuts.size * (4 + 2 * layers.length));
  const bounds = [...cuts].sort((a, b) => a - b);
  const next = layers.map(() => 0);
  let nextOverride = 0;
  const pieces: Piece[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const start = bounds[i] as number;
    const end = bounds[i + 1] as number;
    let piece: Piece = { start, end, userId: null, source: null, layer: null };
    while (nextOverride < overrides.length && (overrides[nextOverride] as { end: number }).end <= start) nextOverride += 1;
    const o = overrides[nextOverride];
    const overridden = o !== undefined && o.start <= start;
    if (overridden) piece = { start, end, userId: o.userId, source: 'override', layer: null };
    for (let l = layers.length - 1; l >= 0 && !overridden; l--) {
      const spans = layers[l] as Span[];
      let j = next[l] as number;
      while (j < spans.length && (spans[j] as Span).end <= start) j += 1;
      next[l] = j;
      const sp = spans[j];
      if (sp && sp.start <= start) {
        piece = { start, end, userId: sp.userId, source: 'layer', layer: l };
        break;
      }
    }
    const last = pieces[pieces.length - 1];
    if (last && sameShift(last, piece)) last.end = end;
    else pieces.push(piece);
  }
  return pieces;
}

/** Before this instant nobody is on call (no layer has started, no override begun); Infinity for an empty schedule. */
function earliest(s: OnCallSchedule): number {
  return Math.min(...s.layers.map((l) => l.startsAt), ...s.overrides.map((o) => o.startsAt));
}

/** Where the run `piece` belongs to (pieces alike by `same`) began; null when unbounded or beyond the horizon. */
function runStart(s: OnCallSchedule, piece: Piece, same: (a: Piece, b: Piece) => boolean, origin: number, budget: WorkBudget): number | null {
  const floor = earliest(s);
  let start = piece.start;
  let chunk = FIRST_CHUNK_MS;
  for (;;) {
    // Before `floor` nobody is on call: a run of nobody reaching it never began; a user's run began there.
    if (start <= floor) return piece.userId === null || origin - start > RUN_HORIZON_MS ? null : start;
    if (origin - start > RUN_HORIZON_MS) return null;
    const before = timeline(s, start - chunk, start, budget);
    for (let i = before.length - 1; i >= 0; i--) {
      const p = before[i] as Piece;
      if (!same(piece, p)) return origin - start > RUN_HORIZON_MS ? null : start;
      start = p.start;
    }
    chunk *= 2;
  }
}

/**
 * The piece that holds for ever from `t` on, when that is plain from the schedule: no override ends
 * after `t`, and from the top down every layer has one user, the same, down to one that has started by
 * `t` and has no restrictions (the only user of a layer, say). Undefined when it is not plain.
 */
function settledFrom(s: OnCallSchedule, t: number): Omit<Piece, 'start' | 'end'> | undefined {
  if (s.overrides.some((o) => o.endsAt > t)) return undefined;
  if (s.layers.length === 0) return { userId: null, source: null, layer: null };
  const user = s.layers[s.layers.length - 1]?.users[0];
  for (let i = s.layers.length - 1; i >= 0; i--) {
    const l = s.layers[i] as Layer;
    if (l.users.some((u) => u !== user)) return undefined;
    // A lower layer shows through where a higher one has nobody: with the same user, a run of one user, not of one source.
    if (l.startsAt <= t && l.restrictions.length === 0) return { userId: user ?? null, source: 'layer', layer: i === s.layers.length - 1 ? i : null };
  }
  return undefined;
}

/** Where the run `piece` belongs to ends; null when unbounded or beyond the horizon. */
function runEnd(s: OnCallSchedule, piece: Piece, same: (a: Piece, b: Piece) => boolean, origin: number, budget: WorkBudget): number | null {
  let end = piece.end;
  let chunk = FIRST_CHUNK_MS;
  for (;;) {
    const settled = settledFrom(s, end);
    if (settled && settled.userId === piece.userId) {
      // Nothing changes from here on. A run of one source goes on for ever only if that source is what holds.
      const sameSource = settled.source === piece.source && settled.layer === piece.layer && (settled.userId === null || settled.layer !== null);
      if (same === sameUser || sameSource) return null;
    }
    if (end - origin > RUN_HORIZON_MS) return null;
    for (const p of timeline(s, end, end + chunk, budget)) {
      if (!same(piece, p)) return end - origin > RUN_HORIZON_MS ? null : end;
      end = p.end;
    }
    chunk *= 2;
  }
}

export interface OnCall {
  /** Who is on call at the instant; null for nobody. */
  userId: string | null;
  /**
   * The stretch around the instant during which that same user (or nobody) stays on call in the merged
   * result, whichever layers or overrides it comes from. Null where unbounded: nobody has been on call
   * since forever (before any layer starts), or the run goes on more than `RUN_HORIZON_MS` (366 days)
   * from the instant, as the only user of a layer does; or where following it takes more work than the
   * budget has left.
   */
  startsAt: number | null;
  endsAt: number | null;
}

/** A bound of a run, or null once following it has spent the budget. */
function bounded(walk: () => number | null): number | null {
  try {
    return walk();
  } catch (err) {
    if (err instanceof WorkLimitReached) return null;
    throw err;
  }
}

/**
 * Who is on call at `at`: the one thing paging needs, without the bounds of their stretch. Its work is
 * bounded by the schedule's own limits (layers, restrictions, overrides), so it needs no budget.
 */
export const whoAt = (schedule: OnCallSchedule, at: number): string | null => (timeline(schedule, at, at + 1)[0] as Piece).userId;

/**
 * Who is on call in `schedule` at the instant `at` (epoch ms), and the bounds of that user's current
 * stretch, followed with the work `budget` allows.
 */
export function onCallAt(schedule: OnCallSchedule, at: number, budget: WorkBudget = new WorkBudget()): OnCall {
  const piece = timeline(schedule, at, at + 1)[0] as Piece;
  return {
    userId: piece.userId,
    startsAt: bounded(() => runStart(schedule, piece, sameUser, at, budget)),
    endsAt: bounded(() => runEnd(schedule, piece, sameUser, at + 1, budget)),
  };
}

export interface Shift {
  userId: string;
  startsAt: number;
  endsAt: number;
  source: Source;
  /** Index of the layer for source `layer`. */
  layer: number | null;
}

/**
 * The merged shifts that intersect [from, to): stretches of one user from one source (one layer, or
 * overrides) with their real bounds, so a shift under way at `from` starts when it really started. A
 * shift that goes on more than 366 days past the range (the only user of a layer), or whose real bound
 * takes more work to find than the budget has left, is cut at the range's edge. WorkLimitReached when the
 * range itself cannot be expanded within the budget.
 */
export function shiftsBetween(s: OnCallSchedule, from: number, to: number, budget: WorkBudget = new WorkBudget()): Shift[] {
  const pieces = timeline(s, from, to, budget);
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  if (first && first.userId !== null) first.start = bounded(() => runStart(s, first, sameShift, from, budget)) ?? from;
  if (last && last.userId !== null) last.end = bounded(() => runEnd(s, last, sameShift, to, budget)) ?? to;
  return pieces.flatMap((p) => (p.userId === null || p.source === null
    ? []
    : [{ userId: p.userId, startsAt: p.start, endsAt: p.end, source: p.source, layer: p.layer }]));
}

/**
 * Whether expanding `days` days of the schedule from `from` fits in half a request's budget (the other
 * half is for following the shifts at its edges): what saving a schedule asks, so that any range the API
 * serves (at most `days` long) can be expanded later.
 */
export function expansionFits(s: OnCallSchedule, from: number, days: number, units: number): boolean {
  try {
    timeline(s, from, from + days * DAY_MS, new WorkBudget(units));
    return true;
  } catch (err) {
    if (err instanceof WorkLimitReached) return false;
    throw err;
  }
}

/** Every user id a schedule names, with the JSON pointer of each mention (for 400 details). */
export function userMentions(input: { layers?: Array<{ users: string[] }> | undefined; overrides?: Array<{ userId: string }> | undefined }): Array<{ userId: string; path: string }> {
  const out: Array<{ userId: string; path: string }> = [];
  input.layers?.forEach((l, i) => l.users.forEach((u, j) => out.push({ userId: u, path: `/layers/${i}/users/${j}` })));
  input.overrides?.forEach((o, i) => out.push({ userId: o.userId, path: `/overrides/${i}/userId` }));
  return out;
}

export interface LayerInput {
  rotation: string;
  shiftHours?: number | null | undefined;
  startsAt: string;
}

/**
 * The rules the body schema cannot state: an IANA zone; `shiftHours` exactly with `custom`; instants
 * that parse; overrides that end after they start.
 */
export function scheduleErrors(input: {
  timezone?: string | undefined;
  layers?: LayerInput[] | undefined;
  overrides?: Array<{ startsAt: string; endsAt: string }> | undefined;
}): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  if (input.timezone !== undefined && !isValidTimezone(input.timezone)) {
    errors.push({ path: '/timezone', message: 'must be an IANA time zone such as Europe/Berlin or UTC' });
  }
  input.layers?.forEach((l, i) => {
    const custom = l.rotation === 'custom';
    const hours = l.shiftHours ?? null;
    if (custom && hours === null) errors.push({ path: `/layers/${i}/shiftHours`, message: 'is required with rotation custom' });
    if (!custom && hours !== null) errors.push({ path: `/layers/${i}/shiftHours`, message: `is only allowed with rotation custom, not ${l.rotation}` });
    if (Number.isNaN(Date.parse(l.startsAt))) errors.push({ path: `/layers/${i}/startsAt`, message: 'must be a date-time' });
  });
  input.overrides?.forEach((o, i) => {
    const start = Date.parse(o.startsAt);
    const end = Date.parse(o.endsAt);
    if (Number.isNaN(start)) errors.push({ path: `/overrides/${i}/startsAt`, message: 'must be a date-time' });
    else if (Number.isNaN(end) || !(end > start)) errors.push({ path: `/overrides/${i}/endsAt`, message: 'must be a date-time after startsAt' });
  });
  return errors;
}

/**
 * A schedule without one user: taken out of every layer's rotation (the others keep rotating), a layer
 * left with nobody dropped, their overrides dropped. Null when the schedule does not name them.
 */
export function withoutUser<L extends { users: string[] }, O extends { userId: string }>(s: { layers: L[]; overrides: O[] }, userId: string): { layers: L[]; overrides: O[] } | null {
  if (!userMentions(s).some((m) => m.userId === userId)) return null;
  return {
    layers: s.layers.map((l) => ({ ...l, users: l.users.filter((u) => u !== userId) })).filter((l) => l.users.length > 0),
    overrides: s.overrides.filter((o) => o.userId !== userId),
  };
}

/** A shift start the incoming person is told about: who, and the bounds of their stretch (null: unbounded). */
export interface Handoff {
  userId: string;
  startsAt: number;
  endsAt: number | null;
}

/**
 * The handoffs in (at - windowMs, at]: the instants the merged timeline (overrides count) moves to a
 * person other than the one before. A move to nobody is none, nor is the same person going on from a
 * layer into an override; a start exactly at the window's opening is left to the look before.
 */
export function handoffsBetween(s: OnCallSchedule, at: number, windowMs: number, budget: WorkBudget = new WorkBudget()): Handoff[] {
  const pieces = timeline(s, at - windowMs, at + 1, budget);
  return pieces.flatMap((p, i) => (p.userId === null || i === 0 || (pieces[i - 1] as Piece).userId === p.userId
    ? []
    : [{ userId: p.userId, startsAt: p.start, endsAt: onCallAt(s, p.start, budget).endsAt }]));
}

/** The notice's subject and text: the schedule and the stretch, in the schedule's time zone. */
export function handoffMessage(scheduleName: string, timezone: string, h: Handoff): { subject: string; text: string } {
  const when = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, dateStyle: 'medium', timeStyle: 'short' });
  const until = h.endsAt === null ? 'until further notice' : `to ${when.format(h.endsAt)}`;
  return {
    subject: `You are on call for ${scheduleName}`,
    text: `You are on call for ${scheduleName} from ${when.format(h.startsAt)} ${until} (${timezone}).`,
  };
}

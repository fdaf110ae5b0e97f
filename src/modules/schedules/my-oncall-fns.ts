import type { Shift } from './schedules-fns.ts';

/** Who takes over when a shift ends: the next person on call right then, or nobody (null) from `startsAt`. */
export interface Handoff {
  userId: string | null;
  startsAt: number;
}

/**
 * Who is on call right after `end` in a schedule whose final shifts are `shifts` (sorted by start): the first
 * other person covering `end`, skipping the member's own following shifts (an override after their layer
 * shift); nobody when the first moment after them is uncovered.
 */
export function handoffAfter(shifts: readonly Shift[], me: string, end: number): Handoff {
  let t = end;
  for (const sh of shifts) {
    if (sh.endsAt <= t) continue;
    if (sh.startsAt > t) break;
    if (sh.userId !== me) return { userId: sh.userId, startsAt: t };
    t = sh.endsAt;
  }
  return { userId: null, startsAt: t };
}

/** A member's shift in one schedule, with whether it is under way at `now` and who follows it. */
export interface MyShift extends Shift {
  current: boolean;
  after: Handoff;
}

/**
 * The member's shifts in one schedule that end after `now`, current first, each with its handoff. The range
 * the shifts were computed over must reach past the last one's end for its handoff to be known.
 */
export function myShifts(shifts: readonly Shift[], me: string, now: number): MyShift[] {
  const sorted = [...shifts].sort((a, b) => a.startsAt - b.startsAt);
  const mine = sorted.filter((sh) => sh.userId === me && sh.endsAt > now);
  // Adjacent shifts of the member (a layer then an override) read as one stretch: only the last one hands over.
  const stretches: Shift[] = [];
  for (const sh of mine) {
    const last = stretches[stretches.length - 1];
    if (last && last.endsAt === sh.startsAt) stretches[stretches.length - 1] = { ...last, endsAt: sh.endsAt };
    else stretches.push(sh);
  }
  return stretches.map((sh) => ({ ...sh, current: sh.startsAt <= now, after: handoffAfter(sorted, me, sh.endsAt) }));
}

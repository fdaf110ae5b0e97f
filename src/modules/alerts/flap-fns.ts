/**
 * Flap detection, pure (docs/paging.md, "Flapping alerts"). A change is an alert of an integration opening
 * (a new alert with the fingerprint: it fires again) or resolving. When `threshold` changes of one
 * (integration, fingerprint) fall within `windowMs`, it starts flapping: the alerts written meanwhile are
 * marked and do not page. It stops once it has not changed for `stableMs`. The alert writer keeps the state
 * (alert-writer.ts) in the transaction of each change; the sweep of flapping ones asks `settled`.
 */

export interface FlapRule {
  threshold: number;
  windowMs: number;
  stableMs: number;
}

export const DEFAULT_FLAP_RULE = { threshold: 5, windowSeconds: 1800, stableSeconds: 1800 } as const;

export interface FlapState {
  /** The instants of the changes within the window, oldest first (at most `threshold` of them are kept). */
  changes: number[];
  flapping: boolean;
  /** When the current (or the last) flapping started; null: never. */
  since: number | null;
  lastChangeAt: number;
}

export const NO_FLAPS: FlapState = { changes: [], flapping: false, since: null, lastChangeAt: 0 };

/** What an alert's change does to its fingerprint's state; `started`: it starts flapping with this change. */
export function flapStep(state: FlapState, at: number, rule: FlapRule): { state: FlapState; started: boolean } {
  const changes = [...state.changes.filter((t) => at - t < rule.windowMs), at].slice(-Math.max(1, rule.threshold));
  const started = !state.flapping && changes.length >= rule.threshold;
  return {
    state: { changes, flapping: state.flapping || started, since: started ? at : state.since, lastChangeAt: Math.max(state.lastChangeAt, at) },
    started,
  };
}

/** A flapping fingerprint is stable again once it has not changed for `stableMs`. */
export const settled = (state: FlapState, now: number, rule: Pick<FlapRule, 'stableMs'>): boolean =>
  state.flapping && now - state.lastChangeAt >= rule.stableMs;

/** The state once stable: not flapping, no change counted; `since` kept for the notice that it ended. */
export const stable = (state: FlapState): FlapState => ({ ...state, changes: [], flapping: false });

/**
 * Whether a change of an alert (before null: the alert is new) counts: only alerts of an integration flap, and
 * only their opening (firing again is a new alert with the fingerprint) and their resolution count.
 */
export function isFlapChange(before: { status: string } | null, after: { status: string; integration_id: string | null }): boolean {
  if (after.integration_id === null) return false;
  return before === null ? after.status !== 'resolved' : before.status !== 'resolved' && after.status === 'resolved';
}

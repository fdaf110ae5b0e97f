/** Time source, injected so that time-dependent rules are tested deterministically. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * A row usually holds one instant in several columns (created, updated, last seen), and a page of 25 alerts
 * formats ~75 of them: the last one formatted is kept.
 */
let lastMs = Number.NaN;
let lastIso = '';
export const iso = (ms: number): string => {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
};
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

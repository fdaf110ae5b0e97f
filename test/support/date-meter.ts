/**
 * How many Date objects are made while `fn` runs: rrule makes one per candidate time (and per day it
 * keeps), so this counts the work a recurrence really costs, independently of the work budget's own
 * accounting, and the same on a busy machine as on an idle one.
 */
export async function datesMade<T>(fn: () => T | Promise<T>): Promise<{ value: T; dates: number }> {
  const Real = globalThis.Date;
  let dates = 0;
  class Counted extends Real {
    constructor(...args: ConstructorParameters<typeof Date>) {
      super(...args);
      dates += 1;
    }
  }
  globalThis.Date = Counted as DateConstructor;
  try {
    const value = await fn();
    return { value, dates };
  } finally {
    globalThis.Date = Real;
  }
}

/**
 * The work one request (or one background step) may spend expanding recurrences: the periods and candidate
 * times of a suppression window's RRULE, and a schedule's rotation handoffs, restriction days and timeline
 * cuts. Both are pure CPU on the event loop, and a tenant chooses their shape, so without a bound one rule
 * can hold every other organization's requests for seconds. Work is counted in units of about the same cost
 * (one candidate time, one handoff, one restriction window: a fraction of a microsecond each), never timed,
 * so whether a rule fits is the same on every machine and under any load. `bench/recurrence-budget.ts`
 * measures what a spent budget costs; docs/security.md has the figures.
 */

/** Units one request may spend: a spent budget is about 15–25 ms of one core (see bench/recurrence-budget.ts). */
export const WORK_UNITS_PER_REQUEST = 2_000_000;

/** Thrown by `spend` once a budget is spent; what was being computed is abandoned. */
export class WorkLimitReached extends Error {
  override readonly name = 'WorkLimitReached';
  constructor() {
    super('The work allowed for one request is spent');
  }
}

export class WorkBudget {
  readonly units: number;
  #spent = 0;
  #refused = false;

  constructor(units: number = WORK_UNITS_PER_REQUEST) {
    this.units = units;
  }

  /** Takes `n` units if they are there; false (nothing taken) otherwise, so the caller stops where it is. */
  take(n: number): boolean {
    if (this.#spent + n > this.units) {
      this.#refused = true;
      return false;
    }
    this.#spent += n;
    return true;
  }

  /** Takes `n` units, or throws WorkLimitReached. */
  spend(n: number): void {
    if (!this.take(n)) throw new WorkLimitReached();
  }

  /** Whether some work was refused: a result computed with this budget may be cut short. */
  get exhausted(): boolean {
    return this.#refused;
  }

  /** Units taken so far. */
  get spent(): number {
    return this.#spent;
  }
}

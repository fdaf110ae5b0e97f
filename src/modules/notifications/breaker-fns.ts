/**
 * A circuit breaker per webhook target host, as pure functions of an injected clock. After `failures`
 * consecutive unanswered attempts (timeout, refused or reset connection) to one host, the breaker opens: attempts to
 * that host are deferred, without being made or counted, for a cool-down; then one attempt goes through as a
 * probe. A probe that succeeds closes the breaker; one that fails opens it again for twice as long (up to
 * `maxCoolDownMs`). Any HTTP answer, even a 5xx, means the host is up and resets the count.
 */

export interface BreakerPolicy {
  failures: number;
  coolDownMs: number;
  maxCoolDownMs: number;
  /** How long a probe may stay unanswered before another one may go (the attempt timeout and a margin). */
  probeMs: number;
}

interface HostState {
  failures: number;
  /** 0 while closed. */
  openUntil: number;
  coolDownMs: number;
  /** When the probe in flight (if any) is presumed lost. */
  probeUntil: number;
}

export type Breakers = Map<string, HostState>;

export type Admission = { ok: true } | { ok: false; retryAt: number };

export const breakers = (): Breakers => new Map();

/** Whether an attempt to `host` may be made at `now`; if not, when to look again. */
export function admit(b: Breakers, policy: BreakerPolicy, host: string, now: number): Admission {
  const s = b.get(host);
  if (!s || s.openUntil === 0) return { ok: true };
  if (now < s.openUntil) return { ok: false, retryAt: s.openUntil };
  if (now < s.probeUntil) return { ok: false, retryAt: s.probeUntil };
  s.probeUntil = now + policy.probeMs;
  return { ok: true };
}

/** Records an attempt's outcome: `up` when the host answered at all. */
export function record(b: Breakers, policy: BreakerPolicy, host: string, up: boolean, now: number): void {
  if (up) {
    b.delete(host);
    return;
  }
  const s = b.get(host) ?? { failures: 0, openUntil: 0, coolDownMs: policy.coolDownMs, probeUntil: 0 };
  s.failures++;
  if (s.openUntil !== 0) {
    // A failed probe (or an attempt that was already under way when the breaker opened).
    if (now >= s.openUntil) s.coolDownMs = Math.min(policy.maxCoolDownMs, s.coolDownMs * 2);
    s.openUntil = Math.max(s.openUntil, now + s.coolDownMs);
    s.probeUntil = 0;
  } else if (s.failures >= policy.failures) {
    s.openUntil = now + s.coolDownMs;
  }
  b.set(host, s);
}

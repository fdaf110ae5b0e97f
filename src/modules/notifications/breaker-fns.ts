/**
 * A circuit breaker per webhook target host, as pure functions of an injected clock. After `failures`
 * consecutive unanswered attempts (timeout, refused or reset connection) to one host, the breaker opens: attempts to
 * that host are deferred, without being made or counted, for a cool-down; then one attempt goes through as a
 * probe. A probe that succeeds closes the breaker; one that fails opens it again for twice as long (up to
 * `maxCoolDownMs`). Any HTTP answer, even a 5xx, means the host is up and resets the count.
 *
 * Attempts at once are bounded too, while a host is unproven: until it has answered (since it last had nothing
 * under way), and again from its first unanswered attempt until its next answer, at most `failures` attempts to it
 * may be under way. A host that answers takes as many as the workers offer; a host that stops answering holds no more
 * workers than it had when its first attempt timed out, and one that never answered holds `failures` of them, while
 * the failing of those opens its breaker.
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
  /** Attempts begun and not yet ended. */
  underWay: number;
  /** Whether the host has answered since this state was made. */
  answered: boolean;
}

export type Breakers = Map<string, HostState>;

/** Not now: `retryAt` when the breaker is open, `busy` while an unproven host has `failures` attempts under way. */
export type Admission = { ok: true } | { ok: false; retryAt: number } | { ok: false; busy: true };

export const breakers = (): Breakers => new Map();

const fresh = (policy: BreakerPolicy): HostState => ({ failures: 0, openUntil: 0, coolDownMs: policy.coolDownMs, probeUntil: 0, underWay: 0, answered: false });

/** Whether an attempt to `host` may begin at `now`; if not, when to look again, or that one under way must end first. */
export function admit(b: Breakers, policy: BreakerPolicy, host: string, now: number): Admission {
  const s = b.get(host);
  if (!s) return { ok: true };
  if (s.openUntil !== 0) {
    if (now < s.openUntil) return { ok: false, retryAt: s.openUntil };
    if (now < s.probeUntil) return { ok: false, retryAt: s.probeUntil };
  }
  const proven = s.answered && s.failures === 0;
  if (!proven && s.underWay >= policy.failures) return { ok: false, busy: true };
  if (s.openUntil !== 0) s.probeUntil = now + policy.probeMs;
  return { ok: true };
}

/** Counts an attempt admitted by `admit` as under way; end it with `record`. */
export function begin(b: Breakers, policy: BreakerPolicy, host: string): void {
  let s = b.get(host);
  if (!s) b.set(host, (s = fresh(policy)));
  s.underWay++;
}

/**
 * Ends an attempt begun with `begin`: `up` when the host answered at all, `false` when it did not, `null` when it
 * was not made after all (it then says nothing about the host).
 */
export function record(b: Breakers, policy: BreakerPolicy, host: string, up: boolean | null, now: number): void {
  const s = b.get(host);
  if (!s) return;
  s.underWay--;
  if (up === true) {
    s.answered = true;
    s.failures = 0;
    s.openUntil = 0;
    s.probeUntil = 0;
    s.coolDownMs = policy.coolDownMs;
  } else if (up === false) {
    s.failures++;
    if (s.openUntil !== 0) {
      // A failed probe (or an attempt that was already under way when the breaker opened).
      if (now >= s.openUntil) s.coolDownMs = Math.min(policy.maxCoolDownMs, s.coolDownMs * 2);
      s.openUntil = Math.max(s.openUntil, now + s.coolDownMs);
      s.probeUntil = 0;
    } else if (s.failures >= policy.failures) {
      s.openUntil = now + s.coolDownMs;
    }
  }
  // A host with nothing under way and nothing against it is forgotten, so the map holds only hosts in play.
  if (s.underWay === 0 && s.failures === 0 && s.openUntil === 0) b.delete(host);
}

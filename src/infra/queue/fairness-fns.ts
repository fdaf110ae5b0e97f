/**
 * Fair priorities for jobs, as pure functions of an injected clock. Each key (an organization, or an
 * organization and target) has a count of the jobs it queued recently that halves every `halfLifeMs`; a new
 * job's priority is minus the sum of its keys' counts. A tenant that queues 4,000 jobs gives them priorities
 * 0 down to about -4,000, while another tenant's one job gets about 0 and is taken before the backlog: in
 * effect round robin between tenants, without counting anything in the database.
 */

export interface FairShare {
  readonly halfLifeMs: number;
  /** Decayed count and when it was last brought up to date, per key. */
  readonly counts: Map<string, { n: number; at: number }>;
}

/** Beyond this many keys, the ones whose count has decayed to almost nothing are forgotten. */
const MAX_KEYS = 10_000;
/** Priorities stay within PostgreSQL's integer and far from its limits. */
const LOWEST_PRIORITY = -1_000_000;

export const fairShare = (halfLifeMs = 60_000): FairShare => ({ halfLifeMs, counts: new Map() });

const decayed = (share: FairShare, key: string, now: number): number => {
  const c = share.counts.get(key);
  return c ? c.n * 2 ** (-Math.max(0, now - c.at) / share.halfLifeMs) : 0;
};

/** The priority of a new job of `keys` at `now` (higher runs first), counting the job in. */
export function nextPriority(share: FairShare, keys: readonly string[], now: number): number {
  let load = 0;
  for (const key of keys) {
    const n = decayed(share, key, now);
    load += n;
    share.counts.set(key, { n: n + 1, at: now });
  }
  if (share.counts.size > MAX_KEYS) {
    for (const key of share.counts.keys()) if (decayed(share, key, now) < 0.5) share.counts.delete(key);
  }
  // `|| 0`: no -0 (a job with no load has priority 0, as one queued without fairness).
  return Math.max(LOWEST_PRIORITY, -Math.floor(load)) || 0;
}

/**
 * The most deliveries of one organization that run at once: all but a quarter of a queue's workers (at least
 * one kept free for the others, when there are two or more), so one tenant's slow targets always leave a worker
 * for everyone else's pages, and a lone tenant still has most of them (the cap does not yield to an idle queue).
 */
export const groupCap = (concurrency: number): number => Math.max(1, concurrency - Math.max(1, Math.floor(concurrency / 4)));

/** The event types a live stream carries (as live-feed.ts writes them), plus `reset`. */
export const LIVE_EVENT_TYPES = ['alert.created', 'alert.updated', 'alert.resolved', 'incident.created', 'incident.updated'] as const;

export interface LiveEvent {
  seq: number;
  orgId: string;
  type: string;
  id: string;
  status: string;
  severity: string;
  title: string;
}

/** The `data` of an event: what a page needs to decide what to refetch or announce. */
export const eventData = (e: LiveEvent) => ({ id: e.id, status: e.status, severity: e.severity, title: e.title });

/** One server-sent event; `data` is JSON on one line, so no line of it can end the event early. */
export function sseEvent(type: string, data: unknown, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A `Last-Event-ID` (header or query) as a sequence number, or null when absent or not one of ours. */
export function parseLastEventId(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) return null;
  return Number(value);
}

/**
 * Which rows of the sequence a poller has passed on, allowing for PostgreSQL's out-of-order commits: a row
 * whose sequence number was taken before another's can become visible after it. Numbers skipped below the
 * highest passed on are held open as gaps for a while (a transaction in flight commits by then; a rolled-back
 * one never fills its gap) and looked for again by number, so a late row is passed on once, and no row twice.
 */
export interface SeqTracker {
  /** The highest number passed on. */
  high: number;
  /** Missing numbers below `high`, with when they were first noticed. */
  gaps: Map<number, number>;
}

export const newTracker = (high: number): SeqTracker => ({ high, gaps: new Map() });

/** Beyond this many missing numbers at once (a sequence moved on by a restore), the hole is not tracked. */
const MAX_GAPS = 10_000;

/**
 * Takes what a poll read (rows after `high`, and rows whose numbers are open gaps, in any order); returns the
 * rows not passed on before, ascending, and advances the tracker. Gaps older than `gapMs` are given up.
 */
export function advance<T extends { seq: number }>(t: SeqTracker, rows: readonly T[], now: number, gapMs: number): T[] {
  const fresh: T[] = [];
  for (const r of [...rows].sort((a, b) => a.seq - b.seq)) {
    if (r.seq > t.high) {
      if (r.seq - t.high - 1 + t.gaps.size <= MAX_GAPS) for (let s = t.high + 1; s < r.seq; s++) t.gaps.set(s, now);
      t.high = r.seq;
    } else if (!t.gaps.delete(r.seq)) continue;
    fresh.push(r);
  }
  for (const [s, seen] of t.gaps) if (now - seen >= gapMs) t.gaps.delete(s);
  return fresh;
}

/** The open gaps to look for again, lowest first, at most `limit`. */
export const openGaps = (t: SeqTracker, limit: number): number[] => [...t.gaps.keys()].sort((a, b) => a - b).slice(0, limit);

import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { errorSummary } from '../../lib/logger.ts';
import { periodic } from '../../lib/periodic.ts';
import { yieldToLoop } from '../../lib/yield.ts';
import { advance, newTracker, openGaps, type LiveEvent, type SeqTracker } from './live-fns.ts';
import type { LiveRepo } from './live-repo.ts';

/** An open stream as the fan-out sees it. */
export interface Subscriber {
  orgId: string;
  deliver(events: LiveEvent[]): void;
  /** The server is shutting down. */
  close(): void;
}

export interface LiveOptions {
  /** How often the poller looks for new rows without being woken. */
  pollMs: number;
  /** PostgreSQL's URL: a connection LISTENs for the writers' notifications (live-feed.ts) and wakes the poller at once. */
  listenUrl: string | null;
  maxStreamsPerOrg: number;
  /** How long rows are kept (and a stream can resume). */
  retentionMs: number;
}

const BATCH = 500;
/** A sequence number skipped by a transaction still in flight is looked for this long (PostgreSQL). */
const GAP_MS = 5_000;
/** A resume that missed more than this refetches everything instead. */
export const MAX_REPLAY = 1_000;
const LISTEN_CHANNEL = 'alertflow_events';

/**
 * The fan-out of `live_events` to this instance's open streams: one poller per instance (not per stream)
 * reads the rows after the last it passed on and hands each organization's rows to that organization's
 * streams only. The writers of alerts and incidents add the rows in the changing transaction (live-feed.ts), so
 * changes made in this process or another arrive here.
 */
export function liveService(deps: { store: Store; repo: LiveRepo; clock: Clock; log: Logger; opts: LiveOptions }) {
  const { store, repo, clock, log, opts } = deps;
  const streams = new Map<string, Set<Subscriber>>();
  let tracker: SeqTracker | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let listener: { end(): Promise<void> } | null = null;
  let stopped = false;
  const prune = () => repo.prune(store.db, clock.now() - opts.retentionMs);

  let starting: Promise<void> | null = null;

  async function pollOnce(): Promise<void> {
    if (!tracker) return;
    for (;;) {
      const before = tracker.high;
      const rows = await repo.since(store.db, before, openGaps(tracker, BATCH), BATCH);
      const fresh = advance(tracker, rows, Date.now(), GAP_MS);
      const byOrg = new Map<string, LiveEvent[]>();
      for (const e of fresh) {
        const list = byOrg.get(e.orgId);
        if (list) list.push(e);
        else byOrg.set(e.orgId, [e]);
      }
      for (const [orgId, events] of byOrg) for (const s of streams.get(orgId) ?? []) s.deliver(events);
      if (rows.filter((r) => r.seq > before).length < BATCH) return;
      await yieldToLoop();
    }
  }

  function nudge(): void {
    if (stopped || streams.size === 0) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await pollOnce();
        } catch (err) {
          log.warn({ error: errorSummary(err) }, 'live events poll failed; retrying at the next poll');
        }
      } while (again && !stopped);
      running = null;
    })();
  }

  async function listen(url: string): Promise<void> {
    const { default: pg } = await import('pg');
    const connect = async (): Promise<void> => {
      if (stopped) return;
      const client = new pg.Client({ connectionString: url });
      let ended = false;
      const retry = () => {
        if (ended) return;
        ended = true;
        client.end().catch(() => undefined);
        // Meanwhile the fallback poll carries on; reconnect after a pause.
        if (!stopped) setTimeout(() => void connect(), 1_000).unref();
      };
      client.on('error', retry);
      client.on('end', retry);
      client.on('notification', nudge);
      try {
        await client.connect();
        await client.query(`listen ${LISTEN_CHANNEL}`);
        listener = { end: async () => { ended = true; await client.end().catch(() => undefined); } };
        // stop() may have run while this connection was being made: it found no listener to end.
        if (stopped) return void (await listener.end());
        nudge();
      } catch (err) {
        log.warn({ error: errorSummary(err) }, 'live events LISTEN failed; polling until it reconnects');
        retry();
      }
    };
    await connect();
  }

  /** The poller starts with the first stream; until then nothing reads the table. */
  function start(): void {
    if (timer || stopped) return;
    timer = setInterval(nudge, opts.pollMs);
    timer.unref();
    if (opts.listenUrl) void listen(opts.listenUrl);
  }

  return {
    nudge,

    /**
     * Registers an open stream; refused (429) beyond this instance's limit for the organization. Resolves once
     * the poller knows where the table ends, so every row committed after that reaches the stream.
     */
    async subscribe(sub: Subscriber): Promise<() => void> {
      const set = streams.get(sub.orgId) ?? new Set();
      if (set.size >= opts.maxStreamsPerOrg) {
        throw new AppError('RATE_LIMITED', `Too many open event streams for this organization (at most ${opts.maxStreamsPerOrg} per server); close one and retry`, null, 5);
      }
      set.add(sub);
      streams.set(sub.orgId, set);
      start();
      const unsubscribe = () => {
        set.delete(sub);
        if (set.size === 0 && streams.get(sub.orgId) === set) streams.delete(sub.orgId);
      };
      try {
        await (starting ??= repo.maxSeq(store.db).then((high) => {
          tracker = newTracker(high);
        }).finally(() => {
          if (!tracker) starting = null;
        }));
      } catch (err) {
        unsubscribe();
        throw err;
      }
      return unsubscribe;
    },

    /**
     * What a stream resuming after `after` missed: the organization's rows since, or `reset` when some of them
     * are gone (older than the retention, or from another store) or too many to replay.
     */
    async replay(orgId: string, after: number): Promise<LiveEvent[] | 'reset'> {
      const pruned = await repo.prunedUpTo(store.db);
      if (after < pruned || after > Math.max(pruned, await repo.maxSeq(store.db))) return 'reset';
      const rows = await repo.orgSince(store.db, orgId, after, MAX_REPLAY + 1);
      return rows.length > MAX_REPLAY ? 'reset' : rows;
    },

    /** Drops rows past the retention (runs where the workers run). */
    prune,
    startPruner: (everyMs: number): { stop(): Promise<void> } => periodic(everyMs, prune, log, 'live events prune failed'),

    /** Ends every open stream (server shutdown: an open stream must not hold the close up). */
    closeAll(): void {
      for (const set of streams.values()) for (const s of [...set]) s.close();
    },

    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await listener?.end();
      await running;
    },
  };
}
export type LiveService = ReturnType<typeof liveService>;

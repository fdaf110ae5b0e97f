import type { FastifyReply, FastifyRequest } from 'fastify';
import { eventData, sseEvent, type LiveEvent } from './live-fns.ts';
import type { LiveService } from './live-service.ts';

export interface StreamTiming {
  /** A comment line this often, so proxies and browsers do not take a quiet stream for a dead one. */
  heartbeatMs: number;
  /** How often the credential is asked again whether it is still good. */
  recheckMs: number;
  /** A client that lets more than this wait unread is dropped (it reconnects and resumes). */
  maxBufferBytes: number;
}

const RETRY_MS = 2_000;

/**
 * Serves one event stream on the raw response: Fastify's reply is hijacked, so no serializer, timeout or
 * onSend hook touches the stream. Registration comes first (a 429 still goes out as a normal error); events
 * arriving while a resume's missed rows are read wait, and none the replay sent is sent again.
 */
export async function openStream(req: FastifyRequest, reply: FastifyReply, o: {
  live: LiveService;
  orgId: string;
  /** Resume after this event id; null for a fresh stream. */
  after: number | null;
  recheck: () => Promise<ReadonlySet<string> | null>;
  timing: StreamTiming;
}): Promise<void> {
  const res = reply.raw;
  let closed = false;
  let held: LiveEvent[] | null = [];
  const replayed = new Set<number>();
  const timers: NodeJS.Timeout[] = [];
  let unsubscribe = (): void => undefined;

  const end = (): void => {
    if (closed) return;
    closed = true;
    for (const t of timers) clearInterval(t);
    unsubscribe();
    res.end();
  };
  const write = (chunk: string): void => {
    if (closed) return;
    res.write(chunk);
    if (res.writableLength > o.timing.maxBufferBytes) {
      end();
      res.destroy();
    }
  };
  const send = (events: readonly LiveEvent[]): void => {
    // The poller may pass on a row the replay already sent (it had not reached it yet), once at most.
    for (const e of events) if (!replayed.delete(e.seq)) write(sseEvent(e.type, eventData(e), e.seq));
  };

  unsubscribe = await o.live.subscribe({
    orgId: o.orgId,
    deliver: (events) => (held ? held.push(...events) : send(events)),
    close: end,
  });
  reply.hijack();
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // nginx and similar proxies would otherwise buffer the stream.
    'x-accel-buffering': 'no',
    // The socket goes with the stream: a stream ended at shutdown leaves no keep-alive connection to wait for.
    connection: 'close',
  });
  req.raw.on('close', end);
  res.on('error', end);
  write(`retry: ${RETRY_MS}\n\n`);

  try {
    if (o.after !== null) {
      const missed = await o.live.replay(o.orgId, o.after);
      if (missed === 'reset') write(sseEvent('reset', {}));
      else {
        send(missed);
        for (const e of missed) replayed.add(e.seq);
      }
    }
  } catch (err) {
    req.log.warn({ error: (err as Error).message }, 'event stream replay failed');
    end();
    return;
  }
  const waiting = held;
  held = null;
  send(waiting);

  timers.push(setInterval(() => write(': keep-alive\n\n'), o.timing.heartbeatMs));
  timers.push(setInterval(() => {
    o.recheck().then((scopes) => {
      if (scopes === null || !scopes.has('alerts:read')) end();
    }, () => undefined /* the store is down: keep the stream; the next check decides */);
  }, o.timing.recheckMs));
}

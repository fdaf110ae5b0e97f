import { Transform } from 'node:stream';
import { AppError } from '../lib/errors.ts';
import type { Api } from './types.ts';

/** A body takes well under a second to be read, parsed and processed: by then some of the bytes held are freed. */
const BUSY_RETRY_AFTER_SECONDS = 1;

const busy = (): AppError => new AppError('OVERLOADED', 'The server is busy with other requests; retry later', null, BUSY_RETRY_AFTER_SECONDS);

/**
 * A process-wide bound on the request body bytes being read, parsed and processed at once. Without it a
 * burst of concurrent large bodies can take any amount of heap (a body's parsed form is several times its
 * size), so no heap cap would be safe; with it, memory under load has a ceiling whatever senders do.
 */
export function boundBodiesInFlight(app: Api, maxBytes: number, bodyLimit: number): void {
  let inFlight = 0;
  const take = (n: number): boolean => {
    if (inFlight + n > maxBytes) return false;
    inFlight += n;
    return true;
  };

  // preParsing: after authentication and rate limits (401, 429: a sender without credentials cannot hold
  // the budget), before the body is read (403 of REST scopes, 415, 413, 400 come after).
  app.addHook('preParsing', (req, reply, payload, done) => {
    const declared = req.headers['content-length'];
    if (declared === undefined && req.headers['transfer-encoding'] === undefined) return done(null, payload);
    let held = 0;
    // 'close' comes once the response is sent or the connection is gone, whichever is first: an aborted
    // request gives its bytes back too.
    reply.raw.once('close', () => {
      inFlight -= held;
    });
    if (declared !== undefined) {
      // Nothing over the body limit is ever read (413 as soon as the length is seen).
      const n = Math.min(Number(declared) || 0, bodyLimit);
      if (!take(n)) return done(busy());
      held = n;
      return done(null, payload);
    }
    // Chunked: no length up front, so the bytes are counted as they arrive.
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, next) {
        if (!take(chunk.length)) return next(busy());
        held += chunk.length;
        next(null, chunk);
      },
    });
    done(null, payload.pipe(counted));
  });
}

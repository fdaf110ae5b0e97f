import type { FastifyRequest } from 'fastify';
import { PassThrough, Transform } from 'node:stream';
import { AppError } from '../lib/errors.ts';
import type { Api } from './types.ts';

/** A body takes well under a second to be read, parsed and processed: by then some of the bytes held are freed. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** Of the bytes in flight, one tenant may hold at most this share (and always one body of the largest size). */
const TENANT_SHARE = 1 / 4;

const busy = (): AppError => new AppError('OVERLOADED', 'The server is busy with other requests; retry later', null, BUSY_RETRY_AFTER_SECONDS);

/**
 * Whose bytes a body's are: the organization of the key, session or ingest token that authenticated it, else
 * the sender's address (sign-in, links and pings carry no organization yet).
 */
const tenantOf = (req: FastifyRequest): string => req.principal?.orgId ?? req.integration?.org_id ?? `address:${req.ip}`;

/**
 * A process-wide bound on the request body bytes being read, parsed and processed at once. Without it a
 * burst of concurrent large bodies can take any amount of heap (a body's parsed form is several times its
 * size), so no heap cap would be safe; with it, memory under load has a ceiling whatever senders do.
 *
 * The bound is shared, so no one may sit on it: one tenant (organization, or address when there is none)
 * holds at most a quarter of it, and a body must arrive within `timeoutMs` of being taken on, else the
 * request is answered 408 REQUEST_TIMEOUT, its bytes given back, and the connection closed. A tenant that
 * opens connections declaring large bodies and sends them a byte at a time (issue 25 row 2) then fills its
 * own share for a few seconds, and every other tenant's requests go on.
 */
export function boundBodiesInFlight(app: Api, opts: { maxBytes: number; bodyLimit: number; timeoutMs: number }): void {
  const { maxBytes, bodyLimit, timeoutMs } = opts;
  const share = Math.max(bodyLimit, Math.floor(maxBytes * TENANT_SHARE));
  let inFlight = 0;
  const byTenant = new Map<string, number>();
  const take = (tenant: string, n: number): boolean => {
    const held = byTenant.get(tenant) ?? 0;
    if (inFlight + n > maxBytes || held + n > share) return false;
    inFlight += n;
    byTenant.set(tenant, held + n);
    return true;
  };
  const give = (tenant: string, n: number): void => {
    inFlight -= n;
    const left = (byTenant.get(tenant) ?? 0) - n;
    if (left > 0) byTenant.set(tenant, left);
    else byTenant.delete(tenant);
  };

  // preParsing: after authentication and rate limits (401, 429: a sender without credentials cannot hold
  // the budget), before the body is read (403 of REST scopes, 415, 413, 400 come after).
  app.addHook('preParsing', (req, reply, payload, done) => {
    const declared = req.headers['content-length'];
    if (declared === undefined && req.headers['transfer-encoding'] === undefined) return done(null, payload);
    const tenant = tenantOf(req);
    let held = 0;
    let timer: NodeJS.Timeout | undefined;
    // 'close' comes once the response is sent or the connection is gone, whichever is first: an aborted
    // request gives its bytes back too.
    reply.raw.once('close', () => {
      clearTimeout(timer);
      give(tenant, held);
    });
    // A body refused or dropped is never read: its connection cannot carry another request, and is closed
    // once the answer is out rather than left open for the sender to go on trickling into.
    const hangUp = () => {
      reply.header('Connection', 'close');
      reply.raw.once('finish', () => req.raw.socket?.destroy());
    };
    // Nothing over the body limit is ever read (413 as soon as the length is seen).
    const n = declared === undefined ? 0 : Math.min(Number(declared) || 0, bodyLimit);
    if (!take(tenant, n)) {
      hangUp();
      return done(busy());
    }
    held = n;
    // Chunked: no length up front, so the bytes are counted as they arrive.
    const body = declared !== undefined ? new PassThrough() : new Transform({
      transform(chunk: Buffer, _encoding, next) {
        if (!take(tenant, chunk.length)) {
          hangUp();
          return next(busy());
        }
        held += chunk.length;
        next(null, chunk);
      },
    });
    timer = setTimeout(() => {
      // The parser reading `body` answers with this error.
      hangUp();
      body.destroy(new AppError('REQUEST_TIMEOUT', `The request body did not arrive within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    body.once('end', () => clearTimeout(timer));
    done(null, payload.pipe(body));
  });
}

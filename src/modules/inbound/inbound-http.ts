import type { FastifyReply, FastifyRequest } from 'fastify';
import { authFailed, spend, type Limits } from '../../http/auth.ts';
import { reportedError } from '../../http/errors.ts';
import { AppError } from '../../lib/errors.ts';
import type { IngestCache } from '../ingest/ingest-cache.ts';
import { keyDigest } from '../integrations/integrations-fns.ts';
import type { IntegrationRow } from '../integrations/integrations-repo.ts';

/** One kind of vendor-style key: the column its digest is in, the shape it must have, its name in refusals. */
export interface KeyKind {
  column: 'routing_key_digest' | 'genie_key_digest';
  shape: RegExp;
  name: string;
}

/**
 * The integration behind a vendor-style key, checked as the ingest token is (ingest-routes.ts): unknown or
 * disabled is 401 (429 once the address passes its failure limit), then the integration's rate limit (429),
 * whose budget the token and both keys share. A key of the wrong shape is refused without a lookup. The
 * integration is known to the request from the lookup on, so even a refusal reaches its counters and log.
 */
export async function authenticateKey(deps: { ingestCache: IngestCache; limits: Limits }, req: FastifyRequest, reply: FastifyReply, kind: KeyKind, key: string | null): Promise<IntegrationRow> {
  const refuse = () => authFailed(deps.limits, req.ip, `Invalid or disabled ${kind.name}`);
  if (key === null || !kind.shape.test(key)) return refuse();
  const found = await deps.ingestCache.integrationByKey(kind.column, keyDigest(key));
  if (!found) return refuse();
  req.integration = found.row;
  req.configVersion = found.version;
  if (found.row.enabled !== 1) return refuse();
  await spend(deps.limits.ingest, found.row.id, reply);
  return found.row;
}

/**
 * A vendor route's error handler: the answer in the vendor's shape (`shape`), with our status (or the vendor's,
 * `status`) and Retry-After; the error as our code, message and details is kept for the integration's rejection
 * log. `tooLarge`: the message of a 413 under the route's own body limit.
 */
export const vendorErrors = (
  shape: (e: AppError, req: FastifyRequest, reply: FastifyReply) => unknown,
  opts: { tooLarge?: string; status?: (e: AppError) => number } = {},
) => (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
  const reported = reportedError(err, req);
  const e = reported.code === 'PAYLOAD_TOO_LARGE' && opts.tooLarge ? new AppError('PAYLOAD_TOO_LARGE', opts.tooLarge) : reported;
  req.rejection = { code: e.code, error: e.message, details: e.details };
  if (e.retryAfter !== undefined) reply.header('Retry-After', e.retryAfter);
  return reply.code(opts.status?.(e) ?? e.status).send(shape(e, req, reply));
};

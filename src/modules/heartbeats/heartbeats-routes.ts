import { Type } from 'typebox';
import { actorOf, authFailed, principalOf, spend, type Limits } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { CreateHeartbeatBody, Heartbeat, HeartbeatList, HeartbeatListQuery, HeartbeatWithToken, PingResponse, UpdateHeartbeatBody } from './heartbeats-schemas.ts';
import type { HeartbeatsService } from './heartbeats-service.ts';

const One = Type.Object({ data: Heartbeat }, { additionalProperties: false });
const OneWithToken = Type.Object({ data: HeartbeatWithToken }, { additionalProperties: false });

const ABOUT = 'A heartbeat expects a ping (`GET` or `POST {base_url}/api/inbound/heartbeat/{token}`) at least every `intervalSeconds`, plus `graceSeconds`. When none comes, it is `down` and opens an alert through the ingest pipeline (source `heartbeat`, no integration, fingerprint `heartbeat:<id>`, labels plus `heartbeat: <name>`, title "Heartbeat <name> missed"), so suppression windows and workflows apply; the next ping resolves it.';

/** Pings carry no meaning in their body, whatever its type (`curl -d`, an empty POST): it is read up to this and dropped. */
const PING_BODY_LIMIT = 64 * 1024;
export const PING_ROUTE = '/api/inbound/heartbeat/:token';

export function heartbeatsRoutes(app: Api, heartbeats: HeartbeatsService): void {
  const read = { scope: 'heartbeats:read', tag: 'heartbeats' } as const;
  const write = { scope: 'heartbeats:write', tag: 'heartbeats' } as const;

  app.get('/heartbeats', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List heartbeats', description: `${ABOUT} Newest first.` },
      { querystring: HeartbeatListQuery, response: { 200: HeartbeatList } }),
  }, (req) => heartbeats.list(principalOf(req).orgId, { limit: req.query.limit ?? 25, cursor: req.query.cursor }));

  app.post('/heartbeats', {
    config: { scope: write.scope },
    schema: apiSchema({
      ...write,
      summary: 'Create a heartbeat',
      description: `${ABOUT} The answer carries the ping token and URL, shown this once (only a hash is kept; rotate the token to get a new one). A heartbeat never pinged is missed once its interval plus grace has passed since it was created.`,
    }, { body: CreateHeartbeatBody, response: { 201: OneWithToken } }),
  }, async (req, reply) => reply.code(201).send({ data: await heartbeats.create(principalOf(req).orgId, actorOf(req), req.body) }));

  app.get('/heartbeats/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get a heartbeat' }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await heartbeats.get(principalOf(req).orgId, req.params.id) }));

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/heartbeats/:id',
      config: { scope: write.scope },
      schema: apiSchema({
        ...write,
        summary: method === 'PUT' ? 'Update a heartbeat' : 'Update a heartbeat (synonym of PUT)',
        description: 'Partial: fields left out stay as they are. A new interval or grace moves `nextDueAt` (from the last ping); resuming a paused heartbeat gives it a full interval plus grace from now. An open alert stays open until the next ping.',
      }, { params: IdParams, body: UpdateHeartbeatBody, response: { 200: One } }),
      handler: async (req) => ({ data: await heartbeats.update(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }),
    });
  }

  app.post('/heartbeats/:id/rotate-token', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Rotate the ping token', description: 'Issues a new token and ping URL (shown this once); the old token is refused from the next ping on. The rate-limit budget stays with the heartbeat.' },
      { params: IdParams, response: { 200: OneWithToken } }),
  }, async (req) => ({ data: await heartbeats.rotateToken(principalOf(req).orgId, actorOf(req), req.params.id) }));

  app.delete('/heartbeats/:id', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Delete a heartbeat', description: 'Its token stops working at once; its open alert, if any, is resolved.' },
      { params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }) } }),
  }, async (req, reply) => {
    await heartbeats.remove(principalOf(req).orgId, actorOf(req), req.params.id);
    return reply.code(204).send(null);
  });
}

/**
 * The ping endpoint, outside /api/v1 like ingest (no OpenAPI entry): an unknown token is 401 (429 once the
 * address passes its failure limit), a known one spends the heartbeat's ingest budget (429 when spent).
 */
export async function heartbeatPingRoutes(app: Api, deps: { heartbeats: HeartbeatsService; limits: Limits }): Promise<void> {
  const { heartbeats, limits } = deps;
  await app.register(async (ping) => {
    ping.removeAllContentTypeParsers();
    ping.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PING_BODY_LIMIT }, (_req, _body, done) => done(null, undefined));
    ping.route({
      method: ['GET', 'POST'],
      url: PING_ROUTE,
      schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 200 }) }), response: { 200: PingResponse } },
      handler: async (req, reply) => {
        const heartbeat = await heartbeats.byToken((req.params as { token: string }).token);
        if (!heartbeat) return authFailed(limits, req.ip, 'Invalid heartbeat token');
        await spend(limits.ingest, heartbeat.id, reply);
        return { data: await heartbeats.ping(heartbeat) };
      },
    });
  });
}

import { Type } from 'typebox';
import { actorOf, authFailed, principalOf, type Limits } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { signedIn } from '../users/users-routes.ts';
import { FeedStatus, IssuedFeed, MyOnCall } from './calendar-feeds-schemas.ts';
import type { CalendarFeedsService } from './calendar-feeds-service.ts';

const FEED = 'A secret URL a calendar app (Google, Outlook, Apple) subscribes to without any header: the token in it is the credential; '
  + 'only its hash is kept. Issuing it again gives a new URL and the old one stops working; revoking deletes it.';
const Deleted = { 204: Type.Null({ description: 'Revoked' }) };

/** Feeds and "my on-call" in /api/v1. A member's own feed needs only `schedules:read`: it shows nothing they cannot read already. */
export function calendarFeedsRoutes(app: Api, feeds: CalendarFeedsService): void {
  const read = { scope: 'schedules:read', tag: 'schedules' } as const;
  const write = { scope: 'schedules:write', tag: 'schedules' } as const;
  const SESSION = 'With the session cookie only (an API key belongs to nobody: 403).';

  app.get('/users/me/oncall', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'My on-call', description: `The signed-in member's shifts under way now and in the next 30 days in every schedule, each with who is on call when it ends. ${SESSION}` },
      { response: { 200: MyOnCall } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: await feeds.myOnCall(me.orgId, me.userId) };
  });

  app.get('/users/me/calendar-feed', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'My calendar feed', description: `Whether the member's own feed exists (its URL is shown only when issued). ${SESSION}` }, { response: { 200: FeedStatus } }),
  }, async (req) => {
    const me = signedIn(req);
    return { data: await feeds.status(me.orgId, 'member', me.userId) };
  });

  app.post('/users/me/calendar-feed', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Issue my calendar feed URL', description: `The member's own shifts in every schedule (a week back, 60 days ahead). ${FEED} Audited. ${SESSION}` },
      { response: { 201: IssuedFeed } }),
  }, async (req, reply) => {
    const me = signedIn(req);
    return reply.code(201).send({ data: await feeds.issue(me.orgId, actorOf(req), 'member', me.userId) });
  });

  app.delete('/users/me/calendar-feed', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Revoke my calendar feed URL', description: `Its URL stops working at once (404 when there is none). Audited. ${SESSION}` }, { response: Deleted }),
  }, async (req, reply) => {
    const me = signedIn(req);
    await feeds.revoke(me.orgId, actorOf(req), 'member', me.userId);
    return reply.code(204).send(null);
  });

  app.get('/schedules/:id/calendar-feed', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'A schedule\'s calendar feed', description: 'Whether the schedule\'s feed exists (its URL is shown only when issued).' }, { params: IdParams, response: { 200: FeedStatus } }),
  }, async (req) => ({ data: await feeds.status(principalOf(req).orgId, 'schedule', req.params.id) }));

  app.post('/schedules/:id/calendar-feed', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Issue a schedule\'s calendar feed URL', description: `Every final shift of the schedule (a week back, 60 days ahead), as \`GET /schedules/{id}/calendar.ics\`. ${FEED} Audited.` },
      { params: IdParams, response: { 201: IssuedFeed } }),
  }, async (req, reply) => reply.code(201).send({ data: await feeds.issue(principalOf(req).orgId, actorOf(req), 'schedule', req.params.id) }));

  app.delete('/schedules/:id/calendar-feed', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Revoke a schedule\'s calendar feed URL', description: 'Its URL stops working at once (404 when there is none). Audited.' }, { params: IdParams, response: Deleted }),
  }, async (req, reply) => {
    await feeds.revoke(principalOf(req).orgId, actorOf(req), 'schedule', req.params.id);
    return reply.code(204).send(null);
  });
}

export const FEED_ROUTE = '/api/calendar/:file';

/**
 * The feeds themselves, outside /api/v1 like ingest (no OpenAPI entry): the token in the path is the only
 * credential. An unknown, revoked or replaced token is 401, a failed authentication of the address
 * (429 past its limit).
 */
export function calendarFeedRoutes(app: Api, deps: { feeds: CalendarFeedsService; limits: Limits }): void {
  app.get(FEED_ROUTE, { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 200 }) }) } }, async (req, reply) => {
    const file = (req.params as { file: string }).file;
    const text = file.endsWith('.ics') ? await deps.feeds.render(file.slice(0, -4)) : null;
    if (text === null) return authFailed(deps.limits, req.ip, 'No such calendar feed: it was revoked or replaced, or the URL is mistyped');
    return reply.type('text/calendar; charset=utf-8').header('cache-control', 'private, max-age=300').send(text);
  });
}

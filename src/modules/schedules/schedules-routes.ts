import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import {
  CreateScheduleBody, MAX_RANGE_DAYS, OnCallList, OnCallQuery, RangeQuery, Schedule, ScheduleList, ScheduleListQuery, SchedulePreview, ScheduleShifts,
  UpdateScheduleBody,
} from './schedules-schemas.ts';
import type { SchedulesService } from './schedules-service.ts';

const One = Type.Object({ data: Schedule }, { additionalProperties: false });

/** The feed is iCalendar text, not JSON: documented as `text/calendar`, sent as it is. */
const Calendar = Type.Unsafe<string>({
  description: 'iCalendar (RFC 5545): one VEVENT per final shift, times in UTC, SUMMARY "On call: <user name>".',
  content: { 'text/calendar': { schema: { type: 'string' } } },
});

const ABOUT = 'Layers rotate round-robin from their `startsAt` (`hourly`, `daily`, `weekly`, or `custom` with `shiftHours`) in the schedule\'s '
  + 'time zone, optionally only inside `restrictions`; later layers beat earlier ones, overrides beat layers. Every user named must be a '
  + 'user of the organization.';

export function schedulesRoutes(app: Api, schedules: SchedulesService): void {
  const read = { scope: 'schedules:read', tag: 'schedules' } as const;
  const write = { scope: 'schedules:write', tag: 'schedules' } as const;

  app.get('/schedules', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List schedules', description: 'Newest first.' }, { querystring: ScheduleListQuery, response: { 200: ScheduleList } }),
  }, (req) => schedules.list(principalOf(req).orgId, { limit: req.query.limit ?? 25, cursor: req.query.cursor }));

  // A static path: the router matches it before `/schedules/:id`.
  app.get('/schedules/current-oncall', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'Get the current on-call engineer',
      description: 'One entry per schedule (a page of them, newest schedule first), or only `scheduleId`\'s, for the instant `at` (default now). '
        + '`startsAt`/`endsAt` bound the stretch during which the same user (or nobody, with `user` null) stays on call in the merged result; '
        + 'null where unbounded or more than 366 days away.',
    }, { querystring: OnCallQuery, response: { 200: OnCallList } }),
  }, (req) => schedules.onCallList(principalOf(req).orgId, {
    scheduleId: req.query.scheduleId, at: req.query.at, limit: req.query.limit ?? 25, cursor: req.query.cursor,
  }));

  app.post('/schedules', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Create a schedule', description: ABOUT }, { body: CreateScheduleBody, response: { 201: One } }),
  }, async (req, reply) => reply.code(201).send({ data: await schedules.create(principalOf(req).orgId, actorOf(req), req.body) }));

  // Reads only: the same scope as the shifts it computes.
  app.post('/schedules/preview', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'Preview a schedule before saving it',
      description: 'A create body, checked exactly as `POST /schedules` checks it (400 for the same reasons), and what it would give: who is on '
        + `call now and the final shifts that intersect [from, to) (default: the 7 days from now; at most ${MAX_RANGE_DAYS} days). Stores nothing. ${ABOUT}`,
    }, { body: CreateScheduleBody, querystring: RangeQuery, response: { 200: SchedulePreview } }),
  }, async (req) => ({ data: await schedules.preview(principalOf(req).orgId, req.body, req.query) }));

  app.get('/schedules/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get a schedule' }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await schedules.get(principalOf(req).orgId, req.params.id) }));

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/schedules/:id',
      config: { scope: write.scope },
      schema: apiSchema({
        ...write,
        summary: method === 'PUT' ? 'Update a schedule' : 'Update a schedule (synonym of PUT)',
        description: `Partial: fields left out stay as they are; \`layers\` and \`overrides\`, when given, replace the stored lists whole. ${ABOUT}`,
      }, { params: IdParams, body: UpdateScheduleBody, response: { 200: One } }),
      handler: async (req) => ({ data: await schedules.update(principalOf(req).orgId, actorOf(req), req.params.id, req.body) }),
    });
  }

  app.delete('/schedules/:id', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Delete a schedule' }, { params: IdParams, response: { 204: Type.Null({ description: 'Deleted' }) } }),
  }, async (req, reply) => {
    await schedules.remove(principalOf(req).orgId, actorOf(req), req.params.id);
    return reply.code(204).send(null);
  });

  app.get('/schedules/:id/shifts', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'List a schedule\'s final shifts',
      description: `The shifts (overrides and layers merged; contiguous time of one user from one source is one shift) that intersect [from, to), `
        + `for a calendar. Default: the 7 days from now; at most ${MAX_RANGE_DAYS} days.`,
    }, { params: IdParams, querystring: RangeQuery, response: { 200: ScheduleShifts } }),
  }, async (req) => ({ data: await schedules.shifts(principalOf(req).orgId, req.params.id, req.query) }));

  app.get('/schedules/:id/calendar.ics', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'iCalendar feed of a schedule',
      description: `The final shifts as an iCalendar feed (\`text/calendar\`), one event per shift with a UID that stays the same across fetches. `
        + `Default range: 7 days ago to 60 days ahead; \`from\`/\`to\` as for shifts (at most ${MAX_RANGE_DAYS} days).`,
    }, { params: IdParams, querystring: RangeQuery, response: { 200: Calendar } }),
  }, async (req, reply) => {
    const text = await schedules.calendar(principalOf(req).orgId, req.params.id, req.query);
    return reply.type('text/calendar; charset=utf-8').send(text);
  });
}

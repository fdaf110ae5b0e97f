import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp, UpdateBody } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';
import { DAYS, ROTATIONS } from './rotation-fns.ts';

export const MAX_LAYERS = 10;
export const MAX_LAYER_USERS = 50;
export const MAX_RESTRICTIONS = 14;
export const MAX_OVERRIDES = 200;
export const MAX_SHIFT_HOURS = 8760;
/** Longest range `GET /schedules/{id}/shifts` and the calendar feed compute at once. */
export const MAX_RANGE_DAYS = 93;

const UserId = Type.String({ minLength: 1, maxLength: 200, description: 'A user of the organization.' });
const HHMM = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'Local time HH:MM (00:00–23:59) in the schedule\'s time zone.' });

const Restriction = Type.Object(
  {
    days: Type.Array(StringEnum(DAYS), { minItems: 1, maxItems: 7, uniqueItems: true, description: 'The days a window starts on.' }),
    from: HHMM,
    to: { ...HHMM, description: 'Local end time HH:MM; `to` ≤ `from` runs overnight into the next day (22:00–06:00), `to` = `from` lasts 24 hours.' },
  },
  { additionalProperties: false },
);

const ROTATION_DESCRIPTION = '`hourly` and `custom` (`shiftHours`) shifts last a fixed time; `daily` and `weekly` handoffs keep the local '
  + 'wall-clock time of `startsAt` in the schedule\'s time zone across DST changes.';

const layerFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  startsAt: Type.String({ format: 'date-time', description: 'The first shift starts here with the first user; before it the layer has nobody on call.' }),
  rotation: StringEnum(ROTATIONS, { description: ROTATION_DESCRIPTION }),
  shiftHours: Nullable(Type.Integer({ minimum: 1, maximum: MAX_SHIFT_HOURS, description: 'Whole hours per shift: required with `custom`, null (or absent) otherwise.' })),
  users: Type.Array(UserId, { minItems: 1, maxItems: MAX_LAYER_USERS, description: 'Round-robin order: each next shift goes to the next user.' }),
  restrictions: Type.Array(Restriction, {
    maxItems: MAX_RESTRICTIONS,
    description: 'When present and not empty, the layer has somebody on call only inside these windows (its rotation goes on underneath).',
  }),
};

const LayerBody = Type.Object(
  { ...layerFields, shiftHours: Type.Optional(layerFields.shiftHours), restrictions: Type.Optional(layerFields.restrictions) },
  { additionalProperties: false },
);
export type LayerBody = Static<typeof LayerBody>;

const OverrideBody = Type.Object(
  {
    userId: UserId,
    startsAt: Type.String({ format: 'date-time' }),
    endsAt: Type.String({ format: 'date-time', description: 'Exclusive; after startsAt.' }),
  },
  { additionalProperties: false },
);
export type OverrideBody = Static<typeof OverrideBody>;

const HANDOFF_DESCRIPTION = 'When a shift starts, the incoming on-call person is emailed at their account address: "You are on call for <schedule> from <start> to <end>", once per shift start.';

export const Schedule = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    timezone: Type.String({ description: 'IANA time zone of rotations and restrictions.' }),
    layers: Type.Array(Type.Object({ ...layerFields, startsAt: Timestamp }, { additionalProperties: false }), {
      description: 'Later layers beat earlier ones; where a later layer has nobody, the earlier shows through.',
    }),
    overrides: Type.Array(Type.Object({ userId: Type.String(), startsAt: Timestamp, endsAt: Timestamp }, { additionalProperties: false }), {
      description: 'Beat every layer; a later override beats an earlier one where they overlap.',
    }),
    handoffNotices: Type.Boolean({ description: HANDOFF_DESCRIPTION }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type Schedule = Static<typeof Schedule>;

const editable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Nullable(Type.String({ maxLength: 4096 })),
  timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone (default UTC).' }),
  layers: Type.Array(LayerBody, { maxItems: MAX_LAYERS, description: 'Replaced as a whole. Later layers beat earlier ones.' }),
  overrides: Type.Array(OverrideBody, { maxItems: MAX_OVERRIDES, description: 'Replaced as a whole. Overrides beat every layer.' }),
  handoffNotices: Type.Boolean({ description: `${HANDOFF_DESCRIPTION} Default false.` }),
};

export const CreateScheduleBody = Type.Object(
  {
    name: editable.name,
    description: Type.Optional(editable.description),
    timezone: Type.Optional(editable.timezone),
    layers: Type.Optional(editable.layers),
    overrides: Type.Optional(editable.overrides),
    handoffNotices: Type.Optional(editable.handoffNotices),
  },
  { additionalProperties: false },
);
export type CreateScheduleBody = Static<typeof CreateScheduleBody>;

export const UpdateScheduleBody = UpdateBody(editable);
export type UpdateScheduleBody = Static<typeof UpdateScheduleBody>;

export const ScheduleList = listOf(Schedule);
export const ScheduleListQuery = Type.Object(PageQuery);

export const OnCallUser = Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }, { additionalProperties: false });
export type OnCallUser = Static<typeof OnCallUser>;

export const OnCallEntry = Type.Object(
  {
    scheduleId: Type.String(),
    scheduleName: Type.String(),
    user: Nullable(OnCallUser),
    startsAt: Nullable({ ...Timestamp, description: 'Since when this user (or nobody) has been on call without a break; null: since ever (nobody before any layer starts) or more than 366 days.' }),
    endsAt: Nullable({ ...Timestamp, description: 'Until when this user (or nobody) stays on call without a break; null: for ever, or more than 366 days from `at`.' }),
  },
  { additionalProperties: false },
);
export type OnCallEntry = Static<typeof OnCallEntry>;
export const OnCallList = listOf(OnCallEntry);

export const OnCallQuery = Type.Object({
  scheduleId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this schedule (404 if it is not one of the organization\'s).' })),
  at: Type.Optional(Type.String({ format: 'date-time', description: 'The instant asked about (default: now).' })),
  ...PageQuery,
});

export const RangeQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Start of the range (inclusive).' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: `End of the range (exclusive), after \`from\` and at most ${MAX_RANGE_DAYS} days from it.` })),
});

export const Shift = Type.Object(
  {
    userId: Type.String(),
    startsAt: Timestamp,
    endsAt: Timestamp,
    source: StringEnum(['layer', 'override'] as const),
    layerName: Type.Optional(Type.String({ description: 'The layer the shift comes from (source `layer` only).' })),
  },
  { additionalProperties: false },
);
export type Shift = Static<typeof Shift>;

export const ScheduleShifts = Type.Object(
  {
    data: Type.Object(
      {
        scheduleId: Type.String(),
        timezone: Type.String(),
        from: Timestamp,
        to: Timestamp,
        shifts: Type.Array(Shift, {
          description: 'The final shifts (overrides and layers merged) that intersect [from, to), earliest first, with their real bounds; '
            + 'time with nobody on call has no shift.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type ScheduleShifts = Static<typeof ScheduleShifts>['data'];

export const SchedulePreview = Type.Object(
  {
    data: Type.Object(
      {
        timezone: Type.String(),
        from: Timestamp,
        to: Timestamp,
        onCall: Type.Object(
          {
            user: Nullable(OnCallUser),
            startsAt: OnCallEntry.properties.startsAt,
            endsAt: OnCallEntry.properties.endsAt,
          },
          { additionalProperties: false, description: 'Who the schedule would have on call now.' },
        ),
        shifts: ScheduleShifts.properties.data.properties.shifts,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type SchedulePreview = Static<typeof SchedulePreview>['data'];

import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp, UpdateBody } from '../../http/schemas.ts';
import { SEVERITIES, STATUSES } from '../alerts/alerts-fns.ts';
import { ConditionLeaf } from '../../lib/conditions.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';

export const UPCOMING = 5;
/** Matching open alerts a preview lists, and how many of the newest open alerts it reads to find them. */
export const PREVIEW_ALERTS = 25;
export const PREVIEW_SCAN = 2000;

const Occurrence = Type.Object({ startsAt: Timestamp, endsAt: Timestamp }, { additionalProperties: false });

/** When a window is in force: computed from the clock, never stored. */
const timing = {
  active: Type.Boolean({ description: 'Whether the window is in force now.' }),
  nextOccurrences: Type.Array(Occurrence, {
    description: `Up to ${UPCOMING} occurrences that have not ended, earliest first (the first one may be under way); empty once the window is over.`,
  }),
};

export const SuppressionWindow = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    startsAt: Timestamp,
    endsAt: Timestamp,
    timezone: Type.String({ description: 'IANA time zone in which the recurrence is evaluated.' }),
    recurrence: Nullable(Type.String({ description: 'RFC 5545 RRULE (canonical form), or null for a one-off window.' })),
    matchers: Type.Array(ConditionLeaf, { description: 'All must hold for the window to hold an alert; empty holds every alert.' }),
    clientId: Nullable(Type.String({ description: 'When set, the window holds only alerts of this client.' })),
    ...timing,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type SuppressionWindow = Static<typeof SuppressionWindow>;

const editable = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Nullable(Type.String({ maxLength: 4096 })),
  startsAt: Type.String({ format: 'date-time', description: 'Start of the window, or of its first occurrence when it recurs.' }),
  endsAt: Type.String({ format: 'date-time', description: 'End (exclusive); with a recurrence, every occurrence lasts endsAt − startsAt.' }),
  timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone (default UTC): recurrences keep their local wall-clock time across DST changes.' }),
  recurrence: Nullable(Type.String({
    minLength: 1,
    maxLength: 500,
    description: 'RFC 5545 RRULE such as `FREQ=WEEKLY;BYDAY=SA` (FREQ YEARLY to HOURLY; no DTSTART or TZID: startsAt and timezone give them). '
      + 'startsAt must be its first occurrence.',
  })),
  matchers: Type.Array(ConditionLeaf, { maxItems: 50 }),
  clientId: Nullable(Type.String({ maxLength: 200, description: 'A client of the organization.' })),
};

export const CreateSuppressionBody = Type.Object(
  {
    name: editable.name,
    description: Type.Optional(editable.description),
    startsAt: editable.startsAt,
    endsAt: editable.endsAt,
    timezone: Type.Optional(editable.timezone),
    recurrence: Type.Optional(editable.recurrence),
    matchers: Type.Optional(editable.matchers),
    clientId: Type.Optional(editable.clientId),
  },
  { additionalProperties: false },
);
export type CreateSuppressionBody = Static<typeof CreateSuppressionBody>;

export const UpdateSuppressionBody = UpdateBody(editable);
export type UpdateSuppressionBody = Static<typeof UpdateSuppressionBody>;

export const SuppressionList = listOf(SuppressionWindow);
export const SuppressionListQuery = Type.Object({
  ...PageQuery,
  clientId: Type.Optional(Type.String({ maxLength: 200, description: 'Only the windows scoped to this client.' })),
});

const HeldAlert = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    severity: StringEnum(SEVERITIES),
    status: StringEnum(STATUSES),
    clientId: Nullable(Type.String()),
    createdAt: Timestamp,
  },
  { additionalProperties: false },
);

export const SuppressionPreview = Type.Object(
  {
    data: Type.Object(
      {
        ...timing,
        alerts: Type.Array(HeldAlert, {
          description: `Open alerts (firing, acknowledged, suppressed) of the organization that the window's client and matchers hold, whatever the time: `
            + `up to ${PREVIEW_ALERTS}, newest first, among the ${PREVIEW_SCAN} newest open alerts.`,
        }),
        complete: Type.Boolean({ description: `False when there may be more: over ${PREVIEW_ALERTS} match, or the organization has over ${PREVIEW_SCAN} open alerts.` }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type SuppressionPreview = Static<typeof SuppressionPreview>['data'];

import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, UpdateBody } from '../../http/schemas.ts';
import { ConditionLeaf } from '../../lib/conditions.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';

export const UPCOMING = 5;

const Occurrence = Type.Object({ startsAt: Timestamp, endsAt: Timestamp }, { additionalProperties: false });

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
    active: Type.Boolean({ description: 'Whether the window is in force now.' }),
    nextOccurrences: Type.Array(Occurrence, {
      description: `Up to ${UPCOMING} occurrences that have not ended, earliest first (the first one may be under way); empty once the window is over.`,
    }),
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

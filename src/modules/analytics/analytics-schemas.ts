import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { SEVERITIES } from '../alerts/alerts-fns.ts';
import { BUCKETS, MEASURES } from './analytics-fns.ts';

const MEASURE_DOC = '`alerts` opened, `occurrences` (payloads, repeats included), `quickResolves` (resolved within a minute of opening, '
  + 'counted in the hour it opened), `incidents` opened, `pages` delivered, `flaps` (times an alert started flapping).';

export const Counts = Type.Object(Object.fromEntries(MEASURES.map((m) => [m, Type.Integer({ minimum: 0 })])) as Record<(typeof MEASURES)[number], ReturnType<typeof Type.Integer>>,
  { additionalProperties: false, description: MEASURE_DOC });

const Range = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Start of the range (default: `to` minus 7 days). Widened to the start of its bucket.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'End of the range, exclusive (default: now). Widened to the end of its bucket.' })),
};
const ClientFilter = { clientId: Type.Optional(Type.String({ maxLength: 200, description: 'Only this client\'s figures.' })) };
const GroupBy = Type.Optional(Type.String({
  pattern: '^(severity|client|integration|label:[^\\s]{1,100})$',
  description: '`severity`, `client`, `integration`, or `label:<key>` for a label key the organization rolls up (`analyticsLabels`, default `service`).',
}));

export const SeriesQuery = Type.Object({
  ...Range,
  bucket: Type.Optional(StringEnum(BUCKETS, { description: 'Hours (UTC hours, up to 7 days), or days, weeks (from Monday) and months of the organization\'s time zone (up to 400 days). Default `day`.' })),
  groupBy: GroupBy,
  ...ClientFilter,
}, { additionalProperties: false });
export type SeriesQuery = Static<typeof SeriesQuery>;

const Frame = {
  timezone: Type.String({ description: 'The organization\'s IANA time zone, in which days, weeks and months are counted.' }),
  from: Timestamp,
  to: Timestamp,
};
const Series = {
  ...Frame,
  bucket: StringEnum(BUCKETS),
  buckets: Type.Array(Timestamp, { description: 'Start of each bucket; a group\'s `series` has one entry per bucket.' }),
  groupBy: Nullable(Type.String()),
};
const GroupName = {
  key: Type.String({ description: 'The group\'s value (a client or integration id, a severity, a label value); empty: none (no client, no such label).' }),
  name: Nullable(Type.String({ description: 'The client\'s or integration\'s name; null for other groupings or a deleted record.' })),
};

export const Volume = Type.Object({
  ...Series,
  totals: Counts,
  groups: Type.Array(Type.Object({ ...GroupName, totals: Counts, series: Type.Array(Counts) }, { additionalProperties: false })),
}, { additionalProperties: false });
export type Volume = Static<typeof Volume>;

export const Spread = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  median: Nullable(Type.Integer({ description: 'Milliseconds (nearest-rank).' })),
  p90: Nullable(Type.Integer({ description: 'Milliseconds (nearest-rank).' })),
}, { additionalProperties: false });
const Durations = Type.Object({
  ack: Spread,
  resolve: Spread,
  page: Spread,
}, { additionalProperties: false, description: 'From an incident\'s opening to its first acknowledgement (MTTA), to its resolution (MTTR), and to its first page delivered.' });

export const ResponseTimes = Type.Object({
  ...Series,
  overall: Durations,
  groups: Type.Array(Type.Object({ ...GroupName, overall: Durations, series: Type.Array(Durations) }, { additionalProperties: false })),
}, { additionalProperties: false });
export type ResponseTimes = Static<typeof ResponseTimes>;

export const DayRangeQuery = Type.Object({ ...Range, ...ClientFilter }, { additionalProperties: false });
export type DayRangeQuery = Static<typeof DayRangeQuery>;

export const PagesPerPerson = Type.Object({
  ...Frame,
  people: Type.Array(Type.Object({
    userId: Type.String(),
    name: Nullable(Type.String({ description: 'Null for a member since removed.' })),
    working: Type.Integer({ description: 'Pages Monday–Friday 09:00–18:00 on the person\'s clock (their `timezone`, else the organization\'s).' }),
    offHours: Type.Integer({ description: 'Pages at night and at weekends.' }),
    total: Type.Integer(),
  }, { additionalProperties: false })),
}, { additionalProperties: false });
export type PagesPerPerson = Static<typeof PagesPerPerson>;

export const NoisyQuery = Type.Object({
  ...Range,
  ...ClientFilter,
  by: Type.Optional(StringEnum(MEASURES, { description: 'What ranks the list (default `occurrences`): `pages` for alerts that page most, `flaps` for flapping ones, `quickResolves` for ones resolved within a minute.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Default 10.' })),
}, { additionalProperties: false });
export type NoisyQuery = Static<typeof NoisyQuery>;

export const NoisyAlert = Type.Object({
  fingerprint: Type.String(),
  integrationId: Nullable(Type.String()),
  integrationName: Nullable(Type.String()),
  clientId: Nullable(Type.String()),
  title: Type.String({ description: 'The latest title seen.' }),
  counts: Counts,
}, { additionalProperties: false });
export const Noisy = Type.Object({ ...Frame, by: StringEnum(MEASURES), alerts: Type.Array(NoisyAlert) }, { additionalProperties: false });
export type Noisy = Static<typeof Noisy>;
export type NoisyAlert = Static<typeof NoisyAlert>;

export const ClientTile = Type.Object({
  clientId: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  openCritical: Type.Integer({ description: 'Open alerts (firing or acknowledged) of severity critical.' }),
  openHigh: Type.Integer(),
  openIncidents: Type.Integer(),
  lastAlert: Nullable(Type.Object({ id: Type.String(), title: Type.String(), severity: StringEnum(SEVERITIES), createdAt: Timestamp }, { additionalProperties: false })),
  maintenance: Nullable(Type.Object({ windowId: Type.String(), name: Type.String(), endsAt: Timestamp }, { additionalProperties: false, description: 'A suppression window in force now that covers the client (scoped to it, or to everything).' })),
  trend: Type.Array(Type.Integer(), { description: 'Alerts opened on each of the last 7 days of the organization\'s time zone, oldest first (today last).' }),
  attention: Type.Integer({ description: 'What the board sorts by, highest first: open critical alerts weigh most, then open incidents, then open high alerts; a client in maintenance counts for little.' }),
}, { additionalProperties: false });
export type ClientTile = Static<typeof ClientTile>;
export const ClientBoard = Type.Object({ timezone: Type.String(), at: Timestamp, clients: Type.Array(ClientTile) }, { additionalProperties: false });
export type ClientBoard = Static<typeof ClientBoard>;

export const dataOf = <T extends ReturnType<typeof Type.Object>>(schema: T) => Type.Object({ data: schema }, { additionalProperties: false });

import { Type, type Static } from 'typebox';
import { Actor, Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';
import { SEVERITIES, STATUSES } from './alerts-fns.ts';

const StringMap = Type.Record(Type.String(), Type.String());
/** How many of its fingerprint's alerts an alert's detail shows as its state history. */
export const HISTORY_MAX = 50;

const alertFields = {
  id: Type.String(),
  title: Type.String(),
  severity: StringEnum(SEVERITIES),
  status: StringEnum(STATUSES),
  source: Nullable(Type.String()),
  description: Nullable(Type.String()),
  fingerprint: Type.String(),
  labels: StringMap,
  annotations: StringMap,
  integrationId: Nullable(Type.String()),
  clientId: Nullable(Type.String()),
  incidentId: Nullable(Type.String()),
  suppressionId: Nullable(Type.String({ description: 'While `suppressed` by a suppression window: that window.' })),
  occurrences: Type.Integer({ description: 'Payloads received for this alert (1 + deduplicated repeats).' }),
  flapping: Type.Boolean({ description: 'Its fingerprint flaps in its integration (docs/paging.md, "Flapping alerts"): it changed between firing and resolved at least the integration\'s `flapping.threshold` times within its window, and has not been stable since. Its changes do not page.' }),
  lastSeenAt: Timestamp,
  acknowledgedAt: Nullable(Timestamp),
  acknowledgedBy: Nullable(Actor),
  resolvedAt: Nullable(Timestamp),
  resolvedBy: Nullable(Actor),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
export const Alert = Type.Object(alertFields, { additionalProperties: false });
export type Alert = Static<typeof Alert>;
export const AlertDetail = Type.Object(
  {
    ...alertFields,
    payload: Type.Unknown({ description: 'The last raw payload received for this alert, as sent.' }),
    incidentNumber: Nullable(Type.Integer({ description: 'The number of `incidentId` (per organization, from 1), to show beside its id.' })),
    history: Type.Array(
      Type.Object({ alertId: Type.String(), firedAt: Timestamp, resolvedAt: Nullable(Timestamp) }, { additionalProperties: false }),
      { maxItems: HISTORY_MAX, description: `The state history of its fingerprint in its integration: each time it fired (an alert) and when that resolved (null: open), newest first, at most ${HISTORY_MAX}. Empty for an alert of no integration.` },
    ),
  },
  { additionalProperties: false },
);
export type AlertDetail = Static<typeof AlertDetail>;

export const AlertList = listOf(Alert);
/** What selects alerts: the list's filters, and the bulk action by filter's. */
const filterFields = {
  status: Type.Optional(Type.String({ maxLength: 200, description: `Comma-separated statuses (${STATUSES.join(', ')}), e.g. \`firing,acknowledged\`; an unknown value is 400.` })),
  severity: Type.Optional(Type.String({ maxLength: 200, description: `Comma-separated severities (${SEVERITIES.join(', ')}), e.g. \`critical,high\`; an unknown value is 400.` })),
  source: Type.Optional(Type.String()),
  fingerprint: Type.Optional(Type.String()),
  integrationId: Type.Optional(Type.String()),
  clientId: Type.Optional(Type.String()),
  label: Type.Optional(Type.Array(Type.String({ pattern: '^[^=]+=' }), { maxItems: 20, description: 'Repeatable `key=value`; all must match.' })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after.' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Created before.' })),
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Title contains (case-insensitive).' })),
  flapping: Type.Optional(StringEnum(['true', 'false'], { description: '`true`: only alerts written while their fingerprint flaps (and it still does); `false`: the others.' })),
};
export const AlertListQuery = Type.Object({ ...PageQuery, ...filterFields });
export const AlertFilterFields = Type.Object(filterFields, { additionalProperties: false, description: 'The filters of `GET /alerts`, with the same meaning.' });
export type AlertFilterFields = Static<typeof AlertFilterFields>;
export type AlertListQuery = Static<typeof AlertListQuery>;

export const BulkBody = Type.Object(
  {
    action: StringEnum(['acknowledge', 'resolve']),
    ids: Type.Array(Type.String({ maxLength: 200 }), { minItems: 1, maxItems: 100 }),
  },
  { additionalProperties: false },
);
export type BulkBody = Static<typeof BulkBody>;
export const BulkResult = Type.Object(
  {
    data: Type.Object({
      results: Type.Array(Type.Union([
        Type.Object({ id: Type.String(), ok: Type.Literal(true), status: StringEnum(STATUSES) }, { additionalProperties: false }),
        Type.Object({ id: Type.String(), ok: Type.Literal(false), code: StringEnum(['NOT_FOUND', 'CONFLICT']) }, { additionalProperties: false }),
      ])),
    }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export type BulkItem = Static<typeof BulkResult>['data']['results'][number];

export const ByFilterBody = Type.Object(
  {
    action: StringEnum(['acknowledge', 'resolve']),
    filter: AlertFilterFields,
    dryRun: Type.Optional(Type.Boolean({ description: 'Only count: nothing changes. The answer\'s `matching` and `asOf` are what `confirm` repeats.' })),
    confirm: Type.Optional(Type.Object(
      {
        count: Type.Integer({ minimum: 0, description: 'The `matching` of the dry run the person agreed to.' }),
        asOf: Type.String({ format: 'date-time', description: 'The `asOf` of that dry run: alerts created after it are left alone.' }),
      },
      { additionalProperties: false },
    )),
  },
  { additionalProperties: false },
);
export type ByFilterBody = Static<typeof ByFilterBody>;
export const ByFilterResult = Type.Object(
  {
    data: Type.Object({
      dryRun: Type.Boolean(),
      matching: Type.Integer({ description: 'Alerts the filter selects, created at or before `asOf`, that the action can change (acknowledge: firing or suppressed; resolve: also acknowledged).' }),
      cap: Type.Integer({ description: 'The most one request changes; past it, repeat the request.' }),
      asOf: Timestamp,
      changed: Type.Integer({ description: 'Alerts this request acknowledged or resolved (0 on a dry run).' }),
      unchanged: Type.Integer({ description: 'Alerts taken but already past the action when reached (answered meanwhile).' }),
      remaining: Type.Integer({ description: 'Matching alerts left for another request because of the cap.' }),
    }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export type ByFilterOutcome = Static<typeof ByFilterResult>['data'];

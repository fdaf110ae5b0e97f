import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { SEVERITIES } from '../alerts/alerts-fns.ts';
import { NoisyAlert, Spread } from '../analytics/analytics-schemas.ts';
import { INCIDENT_STATUSES } from '../incidents/incidents-schemas.ts';

export const PERIOD_PATTERN = '^\\d{4}-(0[1-9]|1[0-2])$';

export const ReportQuery = Type.Object({
  period: Type.Optional(Type.String({ pattern: PERIOD_PATTERN, description: 'A month, `YYYY-MM`, of the organization\'s time zone; default: the month before the current one.' })),
}, { additionalProperties: false });
export type ReportQuery = Static<typeof ReportQuery>;

export const ClientReport = Type.Object({
  client: Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() }, { additionalProperties: false }),
  period: Type.String(),
  previousPeriod: Type.String(),
  timezone: Type.String(),
  from: Timestamp,
  to: Timestamp,
  volume: Type.Object({
    alerts: Type.Integer(),
    occurrences: Type.Integer(),
    quickResolves: Type.Integer(),
    pages: Type.Integer(),
    previousAlerts: Type.Integer({ description: 'Alerts opened in the period before.' }),
    trendPercent: Nullable(Type.Number({ description: 'Change of alerts opened against the period before, in percent; null when there were none before.' })),
    days: Type.Array(Type.Object({ day: Timestamp, alerts: Type.Integer() }, { additionalProperties: false })),
  }, { additionalProperties: false }),
  responseTimes: Type.Object({ ack: Spread, resolve: Spread, page: Spread }, { additionalProperties: false }),
  incidents: Type.Object({
    total: Type.Integer(),
    list: Type.Array(Type.Object({
      id: Type.String(),
      number: Type.Integer(),
      title: Type.String(),
      severity: StringEnum(SEVERITIES),
      status: StringEnum(INCIDENT_STATUSES),
      openedAt: Timestamp,
      resolvedAt: Nullable(Timestamp),
      durationMs: Nullable(Type.Integer({ description: 'Opened to resolved; null while open.' })),
    }, { additionalProperties: false }), { description: 'The incidents opened in the period, oldest first (at most 200).' }),
  }, { additionalProperties: false }),
  noisyAlerts: Type.Array(NoisyAlert, { description: 'The ten alerts with the most occurrences.' }),
  maintenance: Type.Array(Type.Object({ windowId: Type.String(), name: Type.String(), startsAt: Timestamp, endsAt: Timestamp }, { additionalProperties: false }),
    { description: 'Suppression windows covering the client (scoped to it, or to everything) in force during the period, one entry per occurrence.' }),
  availability: Type.Array(Type.Object({
    service: Type.String({ description: 'The `service` label of the client\'s critical alerts; empty: alerts without one; `*`: the client as a whole.' }),
    downMs: Type.Integer({ description: 'Time with at least one critical alert open.' }),
    percent: Type.Number({ description: 'Time without an open critical alert, in percent of the period (3 decimals).' }),
  }, { additionalProperties: false }), { description: 'The client as a whole first, then each service that had a critical alert open; services not listed had none (100 %).' }),
}, { additionalProperties: false });
export type ClientReport = Static<typeof ClientReport>;

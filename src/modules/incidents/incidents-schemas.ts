import { Type, type Static } from 'typebox';
import { Actor, Nullable, StringEnum, Timestamp } from '../../http/schemas.ts';
import { listOf, PageQuery } from '../../lib/pagination.ts';
import { SEVERITIES, STATUSES } from '../alerts/alerts-fns.ts';

export const INCIDENT_STATUSES = ['triggered', 'acknowledged', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export const OPEN_INCIDENT_STATUSES = ['triggered', 'acknowledged'] as const;

export const Incident = Type.Object(
  {
    id: Type.String(),
    number: Type.Integer({ description: 'Per organization, from 1.' }),
    title: Type.String(),
    severity: StringEnum(SEVERITIES, { description: 'The highest severity among its alerts, unless changed by hand (PUT): a hand-set severity holds until a more severe alert joins or an alert of the incident changes severity.' }),
    status: StringEnum(INCIDENT_STATUSES),
    assigneeId: Nullable(Type.String()),
    alertCount: Type.Integer(),
    clientId: Nullable(Type.String()),
    workflowId: Nullable(Type.String({ description: 'The workflow that opened it.' })),
    groupKey: Type.String({ description: 'The values of the workflow\'s `groupBy` fields that alerts joining it share.' }),
    acknowledgedAt: Nullable(Timestamp),
    resolvedAt: Nullable(Timestamp),
    snoozedUntil: Nullable({ ...Timestamp, description: 'While snoozed (acknowledged for a while): when it is triggered again and pages, unless answered before.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false },
);
export type Incident = Static<typeof Incident>;

export const TIMELINE_TYPES = [
  'opened', 'alert_joined', 'status_changed', 'assigned', 'notification_sent', 'notification_failed',
  'escalation_started', 'escalation_step', 'escalation_stopped', 'note_added', 'severity_changed',
  'escalated', 'responder_added', 'responder_paged', 'snoozed',
] as const;

/** The longest snooze: a week. */
export const MAX_SNOOZE_MINUTES = 10_080;

export const MAX_NOTE_LENGTH = 5000;

export const TimelineEntry = Type.Object(
  {
    id: Type.String(),
    type: StringEnum(TIMELINE_TYPES),
    actor: Actor,
    data: Type.Record(Type.String(), Type.Unknown(), {
      description: 'By type: opened `{workflowId, groupKey}`; alert_joined `{alertId}`; status_changed `{from, to}`; assigned `{from, to, reason?, scheduleId?}`; '
        + 'notification_sent / notification_failed `{notificationId, source, channel, target, attempts, step?, recipientId?, error?}`; '
        + 'escalation_started `{escalationId, policyId, policyName, restartOf?, assigneeId?}`; escalation_step `{escalationId, round, step, paged: [{target, userId?, scheduleId?, channel?, via, note?}], nextStepInMinutes | last}`; '
        + 'escalation_stopped `{escalationId, reason}`; note_added `{text}`; severity_changed `{from, to}`; escalated (escalate now) `{escalationId, policyName, step, round}`; '
        + 'responder_added `{escalationId, userId}` or `{escalationId, policyId, policyName, started}`; responder_paged `{escalationId, paged}` (as escalation_step); snoozed `{minutes, until}`. '
        + 'status_changed may carry `reason`: alerts_resolved, alerts_acknowledged, snoozed, snooze_ended.',
    }),
    createdAt: Timestamp,
  },
  { additionalProperties: false },
);
export type TimelineEntry = Static<typeof TimelineEntry>;

export const IncidentAlert = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    severity: StringEnum(SEVERITIES),
    status: StringEnum(STATUSES),
    fingerprint: Type.String(),
    createdAt: Timestamp,
  },
  { additionalProperties: false },
);

export const MAX_DETAIL_ITEMS = 200;

export const IncidentDetail = Type.Object(
  {
    ...Incident.properties,
    alerts: Type.Array(IncidentAlert, { description: `Its alerts, newest first (at most ${MAX_DETAIL_ITEMS}; GET /alerts?incident… is not offered, alertCount is exact).` }),
    timeline: Type.Array(TimelineEntry, { description: `What happened to it, oldest first (the last ${MAX_DETAIL_ITEMS} entries).` }),
  },
  { additionalProperties: false },
);

export const IncidentList = listOf(Incident);
export const IncidentListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.String({ pattern: `^(${INCIDENT_STATUSES.join('|')})(,(${INCIDENT_STATUSES.join('|')}))*$`, description: 'Comma list of statuses.' })),
  assigneeId: Type.Optional(Type.String({ maxLength: 200 })),
  clientId: Type.Optional(Type.String({ maxLength: 200 })),
  mine: Type.Optional(Type.Boolean({ description: 'Only the incidents assigned to the signed-in member or that paged them (a session only: with an API key, 400).' })),
});
export type IncidentListQuery = Static<typeof IncidentListQuery>;

export const UpdateIncidentBody = Type.Object(
  {
    status: Type.Optional(StringEnum(INCIDENT_STATUSES)),
    assigneeId: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    severity: Type.Optional(StringEnum(SEVERITIES)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateIncidentBody = Static<typeof UpdateIncidentBody>;

export const NoteBody = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: MAX_NOTE_LENGTH, pattern: '\\S', description: `What was found or done, as plain text (1–${MAX_NOTE_LENGTH} characters, not only spaces).` }) },
  { additionalProperties: false },
);
export type NoteBody = Static<typeof NoteBody>;

export const SnoozeBody = Type.Object(
  { minutes: Type.Integer({ minimum: 1, maximum: MAX_SNOOZE_MINUTES, description: `How long, 1–${MAX_SNOOZE_MINUTES} minutes (a week).` }) },
  { additionalProperties: false },
);
export type SnoozeBody = Static<typeof SnoozeBody>;

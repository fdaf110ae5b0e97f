import { iso, isoOrNull } from '../../lib/clock.ts';
import { SEVERITIES, type Severity } from '../alerts/alerts-fns.ts';
import type { IncidentRow } from './incidents-repo.ts';
import type { Incident, IncidentStatus } from './incidents-schemas.ts';

/** The more severe of two severities (critical first). */
export const worse = (a: string, b: string): string =>
  SEVERITIES.indexOf(a as Severity) <= SEVERITIES.indexOf(b as Severity) ? a : b;

/** Moves an incident may make through PUT: resolved is final (a new alert opens a new incident). */
export function canMove(from: IncidentStatus, to: IncidentStatus): boolean {
  return from === to || from !== 'resolved';
}

/** The incident as the REST API shows it (also in webhook bodies). */
export const toIncident = (r: IncidentRow): Incident => ({
  id: r.id,
  number: Number(r.number),
  title: r.title,
  severity: r.severity as Incident['severity'],
  status: r.status as IncidentStatus,
  assigneeId: r.assignee_id,
  alertCount: Number(r.alert_count),
  clientId: r.client_id,
  workflowId: r.workflow_id,
  groupKey: r.group_key,
  acknowledgedAt: isoOrNull(r.acknowledged_at),
  resolvedAt: isoOrNull(r.resolved_at),
  snoozedUntil: isoOrNull(r.snoozed_until),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

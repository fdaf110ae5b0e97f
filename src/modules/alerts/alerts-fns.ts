import type { Store } from '../../db/database.ts';
import type { ConditionSubject } from '../../lib/conditions.ts';
import type { AlertRow } from './alerts-repo.ts';

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const STATUSES = ['firing', 'resolved', 'acknowledged', 'suppressed'] as const;
export type AlertStatus = (typeof STATUSES)[number];
/** An alert is open while in one of these; at most one open alert per organization and fingerprint. */
export const OPEN_STATUSES = ['firing', 'acknowledged', 'suppressed'] as const;

/** The columns an alert's conditions read (workflow conditions, suppression matchers). */
export const SUBJECT_COLUMNS = [
  'id', 'title', 'severity', 'status', 'source', 'description', 'fingerprint', 'client_id', 'integration_id', 'labels', 'annotations', 'flapping',
] as const;

/** A stored alert as conditions and templates see it; `readJson` parses the JSON columns of the store's dialect. */
export const conditionSubject = (
  store: Pick<Store, 'readJson'>,
  r: Pick<AlertRow, (typeof SUBJECT_COLUMNS)[number]>,
): ConditionSubject & { id: string } => ({
  id: r.id,
  title: r.title,
  severity: r.severity,
  status: r.status,
  source: r.source,
  description: r.description,
  fingerprint: r.fingerprint,
  clientId: r.client_id,
  integrationId: r.integration_id,
  flapping: r.flapping === 1 ? 'true' : 'false',
  labels: store.readJson<Record<string, string>>(r.labels),
  annotations: store.readJson<Record<string, string>>(r.annotations),
});

/**
 * The most alerts one "acknowledge/resolve all matching" request changes. Each alert is its own transaction
 * through the one rule (as `POST /alerts/bulk`), so a request stays within seconds: 500 took 4 s on SQLite and
 * 13 s on PostgreSQL on the 2-core test machine. A larger storm is answered in a few requests.
 */
export const BY_FILTER_CAP = 500;

/**
 * The statuses an action by filter takes: those the action moves from (see the service's rules), narrowed to
 * the filter's own statuses when it names any. Empty means nothing can match.
 */
export function byFilterStatuses(from: readonly AlertStatus[], filtered: readonly AlertStatus[] | undefined): AlertStatus[] {
  return filtered === undefined ? [...from] : from.filter((s) => filtered.includes(s));
}

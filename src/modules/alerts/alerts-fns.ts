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
  'id', 'title', 'severity', 'status', 'source', 'description', 'fingerprint', 'client_id', 'integration_id', 'labels', 'annotations',
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
  labels: store.readJson<Record<string, string>>(r.labels),
  annotations: store.readJson<Record<string, string>>(r.annotations),
});

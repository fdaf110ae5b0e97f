import type { AlertState } from './alert-effects-fns.ts';
import type { AlertRow } from './alerts-repo.ts';
import { OPEN_FINGERPRINT } from './alerts-repo.ts';

/**
 * The statements of ingest's writes, written out once as SQL text: building them with Kysely on every request
 * cost about a fifth of the server's time. SQLite runs them as prepared statements on its connection
 * (alert-writer-sqlite.ts), PostgreSQL as named prepared statements (alert-writer.ts). `p(i)` is the dialect's
 * placeholder for parameter i (from 1).
 */

/** The sender's status, which decides what happens to an alert already open with its fingerprint. */
export type SentStatus = 'firing' | 'acknowledged' | 'suppressed';
export const SENT: readonly SentStatus[] = ['firing', 'acknowledged', 'suppressed'];

export const ALERT_COLUMNS = [
  'id', 'org_id', 'integration_id', 'client_id', 'incident_id', 'fingerprint', 'title', 'severity', 'status', 'source', 'description',
  'labels', 'annotations', 'payload', 'occurrences', 'last_seen_at', 'acknowledged_at', 'acknowledged_by_type', 'acknowledged_by_id',
  'resolved_at', 'resolved_by_type', 'resolved_by_id', 'suppression_id', 'created_at', 'updated_at',
] as const satisfies ReadonlyArray<keyof AlertRow>;

/** PostgreSQL's types of the columns, for `unnest` of one array per column. */
export const PG_TYPES: Record<(typeof ALERT_COLUMNS)[number], string> = {
  id: 'text', org_id: 'text', integration_id: 'text', client_id: 'text', incident_id: 'text', fingerprint: 'text', title: 'text',
  severity: 'text', status: 'text', source: 'text', description: 'text', labels: 'jsonb', annotations: 'jsonb', payload: 'jsonb',
  occurrences: 'integer', last_seen_at: 'bigint', acknowledged_at: 'bigint', acknowledged_by_type: 'text', acknowledged_by_id: 'text',
  resolved_at: 'bigint', resolved_by_type: 'text', resolved_by_id: 'text', suppression_id: 'text', created_at: 'bigint', updated_at: 'bigint',
};

/** What a write returns of each alert: what the caller answers with and what the effects rules read. */
export const STATE_COLUMNS = 'id, org_id, fingerprint, status, occurrences, incident_id, severity, title, created_at, updated_at, client_id, integration_id, labels';

/** An alert as a write returns it (see STATE_COLUMNS). */
export type WrittenAlert = AlertState;

/**
 * Inserts new open alerts, or — where the organization already has an open alert with the fingerprint —
 * updates that one; the partial unique index decides which, atomically, even across instances. A row's
 * `occurrences` is how many times the request(s) sent it, so a fresh row returns exactly that and a matched
 * one more. `sent` decides what happens to an open alert: `firing` keeps its status (even when the new row
 * itself would be stored `suppressed` by a window); `acknowledged` / `suppressed` move it there, and it then
 * belongs to no window.
 */
export function upsertSql(sent: SentStatus, rows: string): string {
  return `insert into alerts (${ALERT_COLUMNS.join(', ')}) ${rows}
    on conflict (org_id, fingerprint) where ${OPEN_FINGERPRINT} do update set
      occurrences = alerts.occurrences + excluded.occurrences, last_seen_at = excluded.last_seen_at,
      updated_at = excluded.updated_at, payload = excluded.payload
      ${sent === 'firing' ? '' : ', status = excluded.status, suppression_id = excluded.suppression_id'}
      ${sent === 'acknowledged' ? `, acknowledged_at = coalesce(alerts.acknowledged_at, excluded.acknowledged_at),
      acknowledged_by_type = coalesce(alerts.acknowledged_by_type, excluded.acknowledged_by_type),
      acknowledged_by_id = coalesce(alerts.acknowledged_by_id, excluded.acknowledged_by_id)` : ''}
    returning ${STATE_COLUMNS}`;
}

/** Inserts a new open alert unless the organization has an open one with its fingerprint (then returns nothing). */
export const insertNewSql = (rows: string): string =>
  `insert into alerts (${ALERT_COLUMNS.join(', ')}) ${rows} on conflict (org_id, fingerprint) where ${OPEN_FINGERPRINT} do nothing returning ${STATE_COLUMNS}`;

/** One row's placeholders in ALERT_COLUMNS order. */
export const valuesSql = (p: (i: number) => string) => `values (${ALERT_COLUMNS.map((_, i) => p(i + 1)).join(', ')})`;
export const rowParams = (r: AlertRow) => ALERT_COLUMNS.map((c) => r[c]);

/** The open alert of a fingerprint, as it is before a write moves it (its status decides the counters). */
export const OPEN_BY_FINGERPRINT_SQL = (p: (i: number) => string) =>
  `select ${STATE_COLUMNS} from alerts where org_id = ${p(1)} and fingerprint = ${p(2)} and ${OPEN_FINGERPRINT}`;

/** Resolves one alert by id: at ${p(1)}, by ${p(2)} (type) / ${p(3)} (id). */
export const RESOLVE_BY_ID_SQL = (p: (i: number) => string) => `update alerts set status = 'resolved', resolved_at = ${p(1)},
    resolved_by_type = ${p(2)}, resolved_by_id = ${p(3)}, last_seen_at = ${p(1)}, updated_at = ${p(1)} where id = ${p(4)}`;

/** Whether the organization has an enabled workflow (else its alerts' events would queue work nothing reads). */
export const HAS_WORKFLOW_SQL = (p: (i: number) => string) => `select 1 as yes from workflows where org_id = ${p(1)} and enabled = 1 limit 1`;

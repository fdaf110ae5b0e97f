import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { AlertStatus } from '../alerts/alerts-fns.ts';
import type { AlertRow, AlertsRepo } from '../alerts/alerts-repo.ts';
import type { ClientsRepo } from '../clients/clients-repo.ts';
import type { IntegrationRow } from '../integrations/integrations-repo.ts';
import { matchingWindow, type SuppressionWindow } from '../suppression/suppression-fns.ts';
import type { SuppressionRepo } from '../suppression/suppression-repo.ts';
import type { AlertPreview, IngestOutcome } from './ingest-schemas.ts';
import { groupCommitWriter, perRequestWriter } from './ingest-writer.ts';
import { checkMapping, type Mapping } from './mapping-fns.ts';
import { normalizePayload, type NormalizedAlert } from './normalize-fns.ts';
import { effectiveMapping } from './presets.ts';
import { yieldToLoop } from '../../lib/yield.ts';

interface IngestJob {
  orgId: string;
  integrationId: string;
  alerts: NormalizedAlert[];
  /** Per alert: its client (from `labels.client`, else the integration's). */
  clientIds: Array<string | null>;
  receivedAt: number;
}

/** Alerts of one payload stored per turn of the event loop. */
const INGEST_CHUNK = 50;

export function ingestService(deps: { store: Store; alerts: AlertsRepo; clients: ClientsRepo; suppression: Pick<SuppressionRepo, 'forOrg'>; clock: Clock; batchMax: number }) {
  const { store, alerts, clients, suppression, clock } = deps;

  const mappingOf = (integration: IntegrationRow): Mapping | null =>
    effectiveMapping(integration.preset, integration.mapping === null ? null : store.readJson<Mapping>(integration.mapping));

  function normalizeOrThrow(mapping: Mapping | null, body: unknown): NormalizedAlert[] {
    const result = normalizePayload(mapping, body);
    if (!result.ok) throw new AppError('VALIDATION_ERROR', 'Alert payload is invalid', result.errors);
    return result.alerts;
  }

  /** An alert belongs to the client whose slug is its `labels.client`, else to its integration's client. */
  async function clientIdsOf(integration: IntegrationRow, list: NormalizedAlert[]): Promise<Array<string | null>> {
    const slugs = list.map((a) => a.labels.client).filter((s): s is string => s !== undefined);
    const found = new Map((await clients.bySlugs(store.db, integration.org_id, slugs)).map((c) => [c.slug, c.id]));
    return list.map((a) => (a.labels.client !== undefined ? found.get(a.labels.client) : undefined) ?? integration.client_id);
  }

  async function applyOne(db: Kysely<DB>, job: IngestJob, a: NormalizedAlert, clientId: string | null, windows: SuppressionWindow[]): Promise<IngestOutcome> {
    const by: Actor = { type: 'integration', id: job.integrationId };
    const now = job.receivedAt;
    if (a.status === 'resolved') {
      const id = await alerts.resolveOpen(db, job.orgId, a.fingerprint, by, now);
      return id
        ? { alertId: id, fingerprint: a.fingerprint, status: 'resolved', action: 'resolved' }
        : { alertId: null, fingerprint: a.fingerprint, status: null, action: 'ignored' };
    }
    const acked = a.status === 'acknowledged';
    const row: AlertRow = {
      id: newId('alt'),
      org_id: job.orgId,
      integration_id: job.integrationId,
      client_id: clientId,
      incident_id: null,
      fingerprint: a.fingerprint,
      title: a.title as string,
      severity: a.severity as string,
      status: a.status,
      source: a.source,
      description: a.description,
      labels: JSON.stringify(a.labels),
      annotations: JSON.stringify(a.annotations),
      payload: JSON.stringify(a.payload),
      occurrences: 1,
      last_seen_at: now,
      acknowledged_at: acked ? now : null,
      acknowledged_by_type: acked ? by.type : null,
      acknowledged_by_id: acked ? by.id : null,
      resolved_at: null,
      resolved_by_type: null,
      resolved_by_id: null,
      suppression_id: null,
      created_at: now,
      updated_at: now,
    };
    // A new firing alert that a suppression window in force holds is stored suppressed by that window (contract §4).
    const windowId = a.status === 'firing'
      ? matchingWindow(windows, { ...a, title: row.title, severity: row.severity, clientId, integrationId: job.integrationId }, now)
      : null;
    if (windowId) {
      row.status = 'suppressed';
      row.suppression_id = windowId;
    }
    const r = await alerts.upsertOpen(db, row, a.status);
    const status = r.status as AlertStatus;
    if (r.created) return { alertId: r.id, fingerprint: a.fingerprint, status, action: windowId ? 'suppressed' : 'created' };
    return { alertId: r.id, fingerprint: a.fingerprint, status, action: a.status === 'firing' ? 'deduplicated' : a.status };
  }

  async function apply(db: Kysely<DB>, job: IngestJob): Promise<IngestOutcome[]> {
    const out: IngestOutcome[] = [];
    // Read once per job, and only when a firing alert may need them.
    const windows = job.alerts.some((a) => a.status === 'firing') ? await suppression.forOrg(db, job.orgId, job.receivedAt) : [];
    for (const [i, a] of job.alerts.entries()) {
      // A payload of many alerts is one transaction but not one turn of the event loop: other requests are
      // answered meanwhile (on SQLite those that need the database wait for the connection, not the loop).
      if (i > 0 && i % INGEST_CHUNK === 0) await yieldToLoop();
      out.push(await applyOne(db, job, a, job.clientIds[i] ?? null, windows));
    }
    return out;
  }

  const writer = store.dialect === 'sqlite'
    ? groupCommitWriter(store, apply, deps.batchMax)
    // Each alert of a job is one statement (an upsert, or a resolving UPDATE).
    : perRequestWriter(store, apply, (job) => job.alerts.length === 1);

  return {
    /**
     * Maps and validates a payload and stores its alerts, all or none; resolves only once they are
     * committed (a 200 means stored).
     */
    async ingest(integration: IntegrationRow, body: unknown): Promise<IngestOutcome[]> {
      const list = normalizeOrThrow(mappingOf(integration), body);
      const clientIds = await clientIdsOf(integration, list);
      return writer.write({ orgId: integration.org_id, integrationId: integration.id, alerts: list, clientIds, receivedAt: clock.now() });
    },

    /**
     * What ingest would store for this payload, through `mapping` when given (null: the standard payload),
     * or the errors it would answer with. Stores nothing. An invalid `mapping` itself is a 400.
     */
    async preview(integration: IntegrationRow, body: unknown, mapping?: Mapping | null): Promise<{ ok: boolean; alerts: AlertPreview[]; errors: ErrorDetail[] }> {
      const invalid = mapping ? checkMapping(mapping) : [];
      if (invalid.length > 0) throw new AppError('VALIDATION_ERROR', 'Mapping is invalid', invalid);
      const result = normalizePayload(mapping === undefined ? mappingOf(integration) : mapping, body);
      if (!result.ok) return { ok: false, alerts: [], errors: result.errors };
      const clientIds = await clientIdsOf(integration, result.alerts);
      const alerts = result.alerts.map(({ payload: _raw, ...a }, i) => ({ ...a, clientId: clientIds[i] ?? null }));
      return { ok: true, alerts, errors: [] };
    },
  };
}
export type IngestService = ReturnType<typeof ingestService>;

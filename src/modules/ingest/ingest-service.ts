import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { AlertStatus } from '../alerts/alerts-fns.ts';
import type { AlertRow, AlertsRepo } from '../alerts/alerts-repo.ts';
import type { IntegrationRow } from '../integrations/integrations-repo.ts';
import type { IngestOutcome } from './ingest-schemas.ts';
import { groupCommitWriter, perRequestWriter } from './ingest-writer.ts';
import { normalize, type NormalizedAlert } from './normalize-fns.ts';

interface IngestJob {
  orgId: string;
  integrationId: string;
  alerts: NormalizedAlert[];
  receivedAt: number;
}

export function ingestService(deps: { store: Store; alerts: AlertsRepo; clock: Clock; batchMax: number }) {
  const { store, alerts, clock } = deps;

  async function applyOne(db: Kysely<DB>, job: IngestJob, a: NormalizedAlert): Promise<IngestOutcome> {
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
      client_id: null,
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
    const r = await alerts.upsertOpen(db, row);
    const status = r.status as AlertStatus;
    if (r.created) return { alertId: r.id, fingerprint: a.fingerprint, status, action: 'created' };
    return { alertId: r.id, fingerprint: a.fingerprint, status, action: a.status === 'firing' ? 'deduplicated' : a.status };
  }

  async function apply(db: Kysely<DB>, job: IngestJob): Promise<IngestOutcome[]> {
    const out: IngestOutcome[] = [];
    for (const a of job.alerts) out.push(await applyOne(db, job, a));
    return out;
  }

  const writer = store.dialect === 'sqlite'
    ? groupCommitWriter(store, apply, deps.batchMax)
    // Each alert of a job is one statement (an upsert, or a resolving UPDATE).
    : perRequestWriter(store, apply, (job) => job.alerts.length === 1);

  return {
    /** Validates a payload and stores it; resolves only once the alert is committed (a 200 means stored). */
    async ingest(integration: IntegrationRow, body: unknown): Promise<IngestOutcome[]> {
      const result = normalize(body);
      if (!result.ok) throw new AppError('VALIDATION_ERROR', 'Alert payload is invalid', result.errors);
      return writer.write({ orgId: integration.org_id, integrationId: integration.id, alerts: [result.alert], receivedAt: clock.now() });
    },
  };
}
export type IngestService = ReturnType<typeof ingestService>;

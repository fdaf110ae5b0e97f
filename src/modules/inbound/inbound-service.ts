import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import type { Clock } from '../../lib/clock.ts';
import { errorSummary } from '../../lib/logger.ts';
import type { AlertsService, SenderTarget } from '../alerts/alerts-service.ts';
import type { IngestService } from '../ingest/ingest-service.ts';
import type { IntegrationRow } from '../integrations/integrations-repo.ts';
import type { InboundRepo, OpsgenieRequestRow } from './inbound-repo.ts';
import type { PagerDutyEvent } from './pagerduty-fns.ts';

/** Opsgenie's names of the actions a request status reports. */
export type OpsgenieAction = 'Create' | 'Close' | 'Acknowledge' | 'UpdateMessage' | 'UpdateDescription';
type Outcome = Pick<OpsgenieRequestRow, 'success' | 'status' | 'alert_id' | 'alias'>;

const done = (status: string, alert: { id: string; fingerprint: string }): Outcome => ({ success: 1, status, alert_id: alert.id, alias: alert.fingerprint });
/**
 * Nothing to act on. The words follow Opsgenie's where its clients read them: Zabbix's Opsgenie media type stops
 * asking for a request's status once it says "There is no open alert" or "Alert is already".
 */
const none = (target: SenderTarget): Outcome => ({
  success: 0,
  status: 'fingerprint' in target ? 'There is no open alert with this alias' : 'Alert does not exist, or is already closed',
  alert_id: null,
  alias: null,
});

/**
 * The vendors' APIs in front of the one ingest pipeline: an event that opens or repeats an alert goes through
 * ingest (mapping aside, the same normalizing, deduplication, suppression and write), and one that
 * acknowledges, resolves or corrects an alert goes through the alerts service, as a person's action would.
 */
export function inboundService(deps: { store: Store; repo: InboundRepo; ingest: IngestService; alerts: AlertsService; clock: Clock; log: Logger }) {
  const { store, repo, ingest, alerts, clock, log } = deps;

  /**
   * Keeps an Opsgenie request's outcome for `GET /v2/alerts/requests/{id}`. The alert is stored by then, so a
   * failure here is logged, not answered: a sender told to retry would send the alert again.
   */
  async function record(integration: IntegrationRow, requestId: string, action: OpsgenieAction, outcome: Outcome): Promise<void> {
    try {
      await repo.addRequest(store.db, { id: requestId, org_id: integration.org_id, integration_id: integration.id, action, ...outcome, processed_at: clock.now() });
    } catch (err) {
      log.warn({ error: errorSummary(err), orgId: integration.org_id }, 'Opsgenie request outcome not kept');
    }
  }

  return {
    /**
     * A PagerDuty event; resolves once stored. An acknowledge or resolve acts on the open alert with its
     * `dedup_key` that this integration sent, and is accepted and ignored when there is none, as PagerDuty does.
     */
    async pagerduty(integration: IntegrationRow, version: number, event: PagerDutyEvent, raw: unknown): Promise<void> {
      if (event.action === 'trigger') await ingest.ingestTranslated(integration, version, event.alert, raw);
      else await alerts.actAsSender(integration.org_id, integration.id, { fingerprint: event.dedupKey }, event.action);
    },

    opsgenie: {
      /** Creates the alert, or counts one more occurrence of the open alert with its alias. */
      async create(integration: IntegrationRow, version: number, requestId: string, alert: Record<string, unknown>, raw: unknown): Promise<void> {
        const [out] = await ingest.ingestTranslated(integration, version, alert, raw);
        if (!out?.alertId) return;
        const status = out.action === 'deduplicated' ? 'Alert already exists; its count was increased' : 'Created alert';
        await record(integration, requestId, 'Create', done(status, { id: out.alertId, fingerprint: out.fingerprint }));
      },

      /** Closes (resolves) or acknowledges an alert this integration sent; none to act on is a failed request, not an error. */
      async act(integration: IntegrationRow, requestId: string, target: SenderTarget, action: 'resolve' | 'acknowledge'): Promise<void> {
        const row = await alerts.actAsSender(integration.org_id, integration.id, target, action);
        const outcome = row ? done(action === 'resolve' ? 'Closed alert' : 'Acknowledged alert', row) : none(target);
        await record(integration, requestId, action === 'resolve' ? 'Close' : 'Acknowledge', outcome);
      },

      /** A new message (title) or description for an alert this integration sent. */
      async update(integration: IntegrationRow, requestId: string, target: SenderTarget, change: { title: string } | { description: string | null }): Promise<void> {
        const row = await alerts.editAsSender(integration.org_id, integration.id, target, change);
        const action = 'title' in change ? 'UpdateMessage' : 'UpdateDescription';
        await record(integration, requestId, action, row ? done('title' in change ? 'Updated message' : 'Updated description', row) : none(target));
      },

      /** What became of a request of this integration (undefined: unknown, or older than a day). */
      requestStatus: (integration: IntegrationRow, requestId: string) => repo.request(store.db, integration.org_id, integration.id, requestId),
    },
  };
}
export type InboundService = ReturnType<typeof inboundService>;

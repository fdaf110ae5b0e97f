import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { AlertRow } from '../alerts/alerts-repo.ts';
import { ruleOf } from '../alerts/flap-writes.ts';
import type { MemberContacts } from '../contacts/contacts-fns.ts';
import type { PolicySnapshot } from '../escalations/escalations-fns.ts';
import type { PageDelivery } from '../escalations/escalations-service.ts';
import { channelOf, type ChannelType } from '../notifications/channels/registry.ts';
import type { Delivery } from '../notifications/notifications-schemas.ts';
import type { NotificationsService } from '../notifications/notifications-service.ts';
import { readDefinition } from '../workflows/workflows-repo.ts';

const minutes = (ms: number) => `${Math.round(ms / 60_000)} min`;

/**
 * The notices of flap detection (docs/paging.md, "Flapping alerts"): when an alert's fingerprint starts
 * flapping (`alert.flapping`) and when it is stable again (`alert.stable`), one notice to each target that
 * was paged about the fingerprint's alerts of the window before it started — a member on the contact method
 * that paged them, an escalation's channel target, a workflow's email, webhook or chat target. Once per event
 * and target (the notification's key); queued in the transaction of the event's job.
 */
export function flapNotices(deps: {
  store: Store;
  members: MemberContacts;
  notifications: Pick<NotificationsService, 'prepareNotice'>;
  queueDelivery: (db: Kysely<DB>, p: PageDelivery, event: string) => Promise<unknown>;
}) {
  const { store } = deps;

  /** Where a page went, as a delivery to send the notice to (secrets from where the page took them); null when gone. */
  async function deliveryOf(db: Kysely<DB>, n: DB['notifications']): Promise<Delivery | null> {
    const channel = n.channel as ChannelType;
    const same = (d: Delivery) => d.channel === channel && channelOf(d.channel).describe(d.target) === n.target;
    if (n.source === 'escalation' && n.recipient_id !== null) {
      return (await deps.members.planFor(n.org_id, n.recipient_id)).map((c) => ({ channel: c.channel, target: c.target })).find(same) ?? null;
    }
    if (n.source === 'escalation' && n.escalation_id !== null) {
      const e = await db.selectFrom('escalations').select('policy').where('org_id', '=', n.org_id).where('id', '=', n.escalation_id).executeTakeFirst();
      const steps = e ? store.readJson<PolicySnapshot>(e.policy).steps : [];
      return steps.flatMap((s) => s.targets).flatMap((t) => (t.type === 'channel' ? [{ channel: t.channel, target: t.target } as Delivery] : [])).find(same) ?? null;
    }
    if (n.source === 'workflow' && n.workflow_id !== null && n.action_index !== null) {
      const w = await db.selectFrom('workflows').selectAll().where('org_id', '=', n.org_id).where('id', '=', n.workflow_id).executeTakeFirst();
      const action = w ? readDefinition(store, w).actions[n.action_index] : undefined;
      const d: Delivery | null = action?.type === 'email' ? { channel: 'email', target: { to: n.target } }
        : action?.type === 'webhook' ? { channel: 'webhook', target: { url: action.url, secret: action.secret } }
          : action?.type === 'notify' ? { channel: action.channel, target: action.target } : null;
      return d && same(d) ? d : null;
    }
    return null;
  }

  return {
    /** The notices of an `alert.flapping` or `alert.stable` event about `row`; how many were queued. */
    async send(db: Kysely<DB>, row: AlertRow, event: { eventId: string; type: string }): Promise<number> {
      if (row.integration_id === null) return 0;
      const flap = await db.selectFrom('alert_flaps').select('since')
        .where('org_id', '=', row.org_id).where('integration_id', '=', row.integration_id).where('fingerprint', '=', row.fingerprint).executeTakeFirst();
      const integration = await db.selectFrom('integrations').select(['name', 'flap_threshold', 'flap_window_seconds', 'flap_stable_seconds'])
        .where('org_id', '=', row.org_id).where('id', '=', row.integration_id).executeTakeFirst();
      if (!flap || flap.since === null || !integration) return 0;
      const rule = ruleOf(integration);
      const since = Number(flap.since);
      const paged = await db.selectFrom('notifications').selectAll()
        .where('org_id', '=', row.org_id).where('source', 'in', ['escalation', 'workflow'])
        .where('alert_id', 'in', (eb) => eb.selectFrom('alerts').select('id').where('org_id', '=', row.org_id)
          .where('integration_id', '=', row.integration_id).where('fingerprint', '=', row.fingerprint)
          .where('created_at', '>=', since - rule.windowMs).where('created_at', '<=', since))
        .orderBy('created_at').execute();
      const flapping = event.type === 'alert.flapping';
      const notice = flapping
        ? {
          event: 'alert.flapping', subject: `Flapping: ${row.title}`,
          text: `"${row.title}" (${integration.name}) changed between firing and resolved ${rule.threshold} times within ${minutes(rule.windowMs)}: it is flapping. `
            + `Its further changes do not page until it has not changed for ${minutes(rule.stableMs)}.`,
        }
        : {
          event: 'alert.stable', subject: `Stable again: ${row.title}`,
          text: `"${row.title}" (${integration.name}) has not changed for ${minutes(rule.stableMs)}: it is no longer flapping, and its changes page again. It is ${row.status} now.`,
        };
      const done = new Set<string>();
      let queued = 0;
      for (const n of paged) {
        const to = `${n.channel}|${n.target}`;
        if (done.has(to)) continue;
        done.add(to);
        const delivery = await deliveryOf(db, n);
        if (!delivery) continue;
        const made = await deps.notifications.prepareNotice(db, { orgId: row.org_id, source: 'flapping', key: `flap:${event.eventId}:${to}`, recipientId: n.recipient_id, delivery, notice });
        if (!made.created) continue;
        await deps.queueDelivery(db, { notificationId: made.id, orgId: row.org_id, channel: delivery.channel, target: delivery.target }, notice.event);
        queued += 1;
      }
      return queued;
    },
  };
}
export type FlapNotices = ReturnType<typeof flapNotices>;

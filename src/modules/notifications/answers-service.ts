import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import { retried, retriedTransaction } from '../../db/retry.ts';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { orderedId } from '../../lib/ids.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { IncidentsService } from '../incidents/incidents-service.ts';
import type { AnswersRepo } from './answers-repo.ts';
import type { AnswerAction, AnswerOutcome, PageRef } from './channels/inbound.ts';
import type { NotificationRow, NotificationsRepo } from './notifications-repo.ts';

/** A reply code lives as long as a page's acknowledge link: a day. */
export const REPLY_CODE_TTL_MS = 24 * 3_600_000;

export const pageRefOf = (r: NotificationRow): PageRef => ({
  id: r.id, orgId: r.org_id, incidentId: r.incident_id, recipientId: r.recipient_id, channel: r.channel, target: r.target,
  status: r.status, providerRef: r.provider_ref, createdAt: Number(r.created_at),
});

/**
 * Answers that come back through a channel (an SMS reply, a key on a call, a chat button): each acts once
 * (per channel and provider event, in the database), through the incidents service and its acknowledge /
 * resolve rule, audited and logged with the page it answers. And the reply codes pages carry.
 */
export function answersService(deps: {
  store: Store;
  repo: AnswersRepo;
  notifications: NotificationsRepo;
  incidents: Pick<IncidentsService, 'respond' | 'row'>;
  audit: AuditService;
  clock: Clock;
}) {
  const { store, repo, clock } = deps;

  const page = async (id: string): Promise<PageRef | null> => {
    const row = await deps.notifications.get(store.db, id);
    return row ? pageRefOf(row) : null;
  };

  return {
    /**
     * The code a page to `address` carries: the one the address already has for this incident, else the
     * incident's number when free (easy to read back), else a free random one. Taken in the caller's
     * transaction, so it holds only if the page is sent.
     */
    async replyCode(db: Kysely<DB>, p: { address: string; orgId: string; notificationId: string; incidentId: string; incidentNumber: number }): Promise<string> {
      const now = clock.now();
      const held = await repo.liveCode(db, p.address, p.incidentId, now);
      const row = { address: p.address, org_id: p.orgId, notification_id: p.notificationId, incident_id: p.incidentId, expires_at: now + REPLY_CODE_TTL_MS };
      const candidates = [
        ...(held !== null ? [held] : []),
        ...(p.incidentNumber < 10_000 ? [String(p.incidentNumber)] : []),
        ...Array.from({ length: 20 }, (_, i) => String(randomInt(i < 10 ? 100 : 1000, i < 10 ? 1000 : 10_000))),
      ];
      for (const code of candidates) if (await repo.takeCode(db, { ...row, code }, now)) return code;
      throw new Error(`No free reply code for ${p.address}`);
    },

    page,

    async pageByReplyCode(address: string, code: string): Promise<PageRef | null> {
      const hit = await repo.byCode(store.db, address, code, clock.now());
      return hit ? page(hit.notification_id) : null;
    },

    /** One answer, in one transaction (run again if it loses a deadlock): logged once (else `duplicate`), then the incident moved through its service. */
    async answer(a: { page: PageRef; action: AnswerAction; userId: string | null; eventKey: string; via: string }): Promise<AnswerOutcome> {
      const { page } = a;
      if (page.incidentId === null) return { state: 'gone' };
      const incidentId = page.incidentId;
      const at = clock.now();
      return retriedTransaction(store.db, async (trx): Promise<AnswerOutcome> => {
        const id = orderedId('ans', at);
        const fresh = await repo.insertOnce(trx, {
          id, org_id: page.orgId, notification_id: page.id, incident_id: incidentId, channel: page.channel, event_key: a.eventKey,
          action: a.action, outcome: 'pending', user_id: a.userId, via: a.via, created_at: at,
        });
        if (!fresh) return { state: 'duplicate' };
        const before = await deps.incidents.row(trx, page.orgId, incidentId);
        if (!before) {
          await repo.setOutcome(trx, id, 'gone');
          return { state: 'gone' };
        }
        // The member the page went to answers (a page to a shared channel names whoever the channel matched).
        const actor: Actor = { type: 'user', id: a.userId };
        const to = a.action === 'acknowledge' ? 'acknowledged' : 'resolved';
        const after = (await deps.incidents.respond(trx, page.orgId, incidentId, to, actor, at, { via: a.via, notificationId: page.id })) ?? before;
        const changed = after.status !== before.status;
        await repo.setOutcome(trx, id, changed ? 'done' : 'already');
        await deps.audit.record(trx, {
          orgId: page.orgId, action: `incident.${to}_by_${page.channel}`, actor, target: { type: 'incident', id: incidentId },
          metadata: { via: a.via, notificationId: page.id, from: before.status, to: after.status, changed },
        });
        return { state: changed ? 'done' : 'already', incident: { number: Number(after.number), title: after.title, status: after.status } };
      });
    },

    providerStatus: (page: PageRef, status: string, failure: string | null) =>
      retried(() => deps.notifications.providerStatus(store.db, page.orgId, page.id, status.slice(0, 40), failure, clock.now())).then(() => undefined),
  };
}
export type AnswersService = ReturnType<typeof answersService>;

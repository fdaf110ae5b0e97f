import type { Store } from '../../db/database.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { IncidentsService } from '../incidents/incidents-service.ts';
import { linkHash, signLink, verifyLink, type LinkClaims } from './escalations-fns.ts';
import type { EscalationsRepo } from './escalations-repo.ts';
import { retriedTransaction } from '../../db/retry.ts';

/** What opening or confirming a page's link comes to, for the page that says so. */
export type LinkView =
  | { state: 'invalid' | 'expired' | 'used' | 'gone' }
  | {
    state: 'confirm' | 'done' | 'already';
    action: LinkClaims['action'];
    incident: { id: string; number: number; title: string; status: string };
    /** After an acknowledgement, while the incident is open: the same page's resolve link (same recipient and expiry). */
    resolveToken: string | null;
  };

/**
 * The acknowledge / resolve links of escalation pages. Opening one (GET) only shows what it would do, since
 * mail scanners fetch links; the POST from that page acts, once: its use is recorded under the token's hash.
 */
export function pageLinksService(deps: { store: Store; repo: EscalationsRepo; incidents: IncidentsService; audit: AuditService; clock: Clock; secret: string }) {
  const { store, repo, incidents, audit, clock } = deps;
  const summary = (r: { id: string; number: number; title: string; status: string }) => ({ id: r.id, number: Number(r.number), title: r.title, status: r.status });
  // Signing is deterministic: this is the very resolve link the page carried, so it too works once.
  const resolveOf = (claims: LinkClaims, status: string) =>
    claims.action === 'acknowledge' && status !== 'resolved' ? signLink(deps.secret, { ...claims, action: 'resolve' }) : null;

  return {
    async view(token: string): Promise<LinkView> {
      const checked = verifyLink(deps.secret, token, clock.now());
      if (!checked.ok) return { state: checked.reason };
      if (await repo.linkUsed(store.db, linkHash(token))) return { state: 'used' };
      const incident = await incidents.row(store.db, checked.claims.orgId, checked.claims.incidentId);
      if (!incident) return { state: 'gone' };
      return { state: 'confirm', action: checked.claims.action, incident: summary(incident), resolveToken: null };
    },

    async use(token: string, ip: string | null): Promise<LinkView> {
      const at = clock.now();
      const checked = verifyLink(deps.secret, token, at);
      if (!checked.ok) return { state: checked.reason };
      const { claims } = checked;
      // The member the page went to acts; a page to a shared channel has no member (id null).
      const actor: Actor = { type: 'user', id: claims.recipientId };
      // Run again after a deadlock (docs/architecture.md, "Lock order"): the person opened the link once.
      return retriedTransaction(store.db, async (trx): Promise<LinkView> => {
        const before = await incidents.row(trx, claims.orgId, claims.incidentId);
        if (!before) return { state: 'gone' };
        if (!(await repo.useLink(trx, { token_hash: linkHash(token), org_id: claims.orgId, incident_id: claims.incidentId, recipient_id: claims.recipientId, action: claims.action, used_at: at }))) return { state: 'used' };
        const after = await incidents.respond(trx, claims.orgId, claims.incidentId, claims.action === 'acknowledge' ? 'acknowledged' : 'resolved', actor, at);
        const changed = after !== null && after.status !== before.status;
        await audit.record(trx, {
          orgId: claims.orgId, action: `incident.${claims.action === 'acknowledge' ? 'acknowledged' : 'resolved'}_by_link`, actor, ip,
          target: { type: 'incident', id: claims.incidentId }, metadata: { from: before.status, to: after?.status ?? before.status, changed },
        });
        const now = after ?? before;
        return { state: changed ? 'done' : 'already', action: claims.action, incident: summary(now), resolveToken: resolveOf(claims, now.status) };
      });
    },
  };
}
export type PageLinksService = ReturnType<typeof pageLinksService>;

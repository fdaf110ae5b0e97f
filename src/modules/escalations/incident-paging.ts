import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import type { JobQueue } from '../../infra/queue/queue.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, conflict, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { AuditService } from '../audit/audit-service.ts';
import { toIncident } from '../incidents/incidents-fns.ts';
import type { IncidentRow, IncidentsRepo } from '../incidents/incidents-repo.ts';
import type { Incident } from '../incidents/incidents-schemas.ts';
import { nextStep, type PolicySnapshot } from './escalations-fns.ts';
import type { EscalationRow, EscalationsRepo } from './escalations-repo.ts';
import type { ResponderBody, Step } from './escalations-schemas.ts';

type Note = (db: Kysely<DB>, e: Pick<EscalationRow, 'org_id' | 'incident_id'>, type: string, actor: Actor, data: Record<string, unknown>, at: number) => Promise<unknown>;
type Begin = (db: Kysely<DB>, p: { orgId: string; incident: IncidentRow; policyId: string; alertId: string; policy: PolicySnapshot; assigneeId: string | null }, actor: Actor, at: number, data: Record<string, unknown>) => Promise<EscalationRow | null>;
type StepJob = (db: Kysely<DB>, e: Pick<EscalationRow, 'id' | 'org_id'>, repeat: number, step: number, delayMs: number) => Promise<void>;

/**
 * Paging that a person asks for while working an incident (docs/paging.md, "Working an incident"): the next
 * step of its escalation at once, a responder paged now, and the escalation started again when the incident
 * is triggered again. Steps and pages go through the escalation's own step jobs, so a step fires once however
 * it was asked for (the escalation_steps claim).
 */
export function incidentPaging(deps: {
  store: Store;
  repo: EscalationsRepo;
  incidents: IncidentsRepo;
  audit: AuditService;
  clock: Clock;
  queue: JobQueue;
  begin: Begin;
  note: Note;
  stepJob: StepJob;
}) {
  const { store, repo, incidents, audit, clock, queue, note } = deps;

  /** The incident, open; a resolved one is final (409). */
  async function openIncident(db: Kysely<DB>, orgId: string, id: string, doing: string): Promise<IncidentRow> {
    const incident = await incidents.get(db, orgId, id);
    if (!incident) throw notFound('Incident');
    if (incident.status === 'resolved') throw conflict(`A resolved incident cannot be ${doing}`);
    return incident;
  }

  /** An alert of the incident, under which its pages are logged (every incident has one: it opened it). */
  async function alertOf(db: Kysely<DB>, incident: IncidentRow): Promise<string> {
    const [alert] = await incidents.alerts(db, incident.org_id, incident.id);
    if (!alert) throw conflict('The incident has no alert to page about');
    return alert.id;
  }

  /** A one-step request that pages `targets` once now, beside the escalation (kind responder). */
  async function request(db: Kysely<DB>, incident: IncidentRow, policyId: string, name: string, targets: Step['targets'], at: number): Promise<EscalationRow> {
    const snapshot: PolicySnapshot = { name, steps: [{ delayMinutes: 0, targets }], repeat: 0 };
    const row: EscalationRow = {
      id: newId('esc'), org_id: incident.org_id, incident_id: incident.id, policy_id: policyId, alert_id: await alertOf(db, incident), policy: JSON.stringify(snapshot),
      assignee_id: null, status: 'responding', kind: 'responder', repeat: 0, step: 0, started_at: at, stopped_at: null, stop_reason: null,
    };
    await repo.insertResponder(db, row);
    await deps.stepJob(db, row, 0, 1, 0);
    return row;
  }

  return {
    /**
     * The escalation's next step fires now instead of after its delay; the rest follows from it as usual. Only a
     * triggered incident escalating now has one (409 saying why otherwise).
     */
    async escalateNow(orgId: string, actor: Actor, id: string): Promise<Incident> {
      const at = clock.now();
      const incident = await store.db.transaction().execute(async (trx) => {
        const incident = await openIncident(trx, orgId, id, 'escalated');
        if (incident.status !== 'triggered') throw conflict('The incident is acknowledged, so nobody is being paged: add a responder to page someone now');
        const e = await repo.active(trx, orgId, id);
        if (!e) throw conflict('The incident has no escalation under way (none started, or every step has paged): add a responder to page someone now');
        const policy = store.readJson<PolicySnapshot>(e.policy);
        // Nothing fired yet: step 1 is due at once already.
        const next = Number(e.step) === 0 ? { repeat: 0, step: 1 } : nextStep(policy, Number(e.repeat), Number(e.step));
        if (!next) throw conflict('The escalation has paged its last step: add a responder to page someone now');
        await deps.stepJob(trx, e, next.repeat, next.step, 0);
        await note(trx, e, 'escalated', actor, { escalationId: e.id, policyName: policy.name, step: next.step, round: next.repeat + 1 }, at);
        await audit.record(trx, { orgId, action: 'incident.escalated', actor, target: { type: 'incident', id }, metadata: { escalationId: e.id, step: next.step, round: next.repeat + 1 } });
        return incident;
      });
      queue.nudge('escalations');
      return toIncident(incident);
    },

    /**
     * Pages a responder now: a member by their contact methods, or a policy. A policy escalates the incident
     * from its step 1 when the incident is triggered and not escalating; otherwise its first step's targets are
     * paged once. A responder's pages go while nobody answers: the incident's next acknowledgement or its
     * resolution ends them.
     */
    async addResponder(orgId: string, actor: Actor, id: string, input: ResponderBody): Promise<Incident> {
      const at = clock.now();
      const incident = await store.db.transaction().execute(async (trx) => {
        const incident = await openIncident(trx, orgId, id, 'given a responder');
        let data: Record<string, unknown>;
        if ('userId' in input) {
          if (!(await repo.userIds(trx, orgId, [input.userId])).has(input.userId)) {
            throw new AppError('VALIDATION_ERROR', 'Responder is invalid', [{ path: '/userId', message: 'is not a user of this organization' }]);
          }
          const r = await request(trx, incident, '', 'Responder', [{ type: 'user', id: input.userId }], at);
          data = { escalationId: r.id, userId: input.userId };
        } else {
          const policy = await repo.policy(trx, orgId, input.policyId);
          if (!policy) throw new AppError('VALIDATION_ERROR', 'Responder is invalid', [{ path: '/policyId', message: 'is not an escalation policy of this organization' }]);
          const steps = store.readJson<Step[]>(policy.steps);
          const escalating = incident.status === 'triggered' && (await repo.active(trx, orgId, id)) !== undefined;
          const started = incident.status === 'triggered' && !escalating
            ? await deps.begin(trx, { orgId, incident, policyId: policy.id, alertId: await alertOf(trx, incident), policy: { name: policy.name, steps, repeat: Number(policy.repeat) }, assigneeId: null }, actor, at, {})
            : null;
          const r = started ?? await request(trx, incident, policy.id, policy.name, steps[0]?.targets ?? [], at);
          data = { escalationId: r.id, policyId: policy.id, policyName: policy.name, started: started !== null };
        }
        await note(trx, about(incident), 'responder_added', actor, data, at);
        await audit.record(trx, { orgId, action: 'incident.responder_added', actor, target: { type: 'incident', id }, metadata: data });
        return incident;
      });
      queue.nudge('escalations');
      return toIncident(incident);
    },

    /**
     * The incident is triggered again (by hand, or at the end of a snooze): its newest policy escalation starts
     * again from step 1, also paging its assignee. Nothing when it never escalated or escalates already.
     */
    async incidentRetriggered(db: Kysely<DB>, incident: IncidentRow, actor: Actor, at: number, reason: string): Promise<void> {
      const last = await repo.latestPolicyRun(db, incident.org_id, incident.id);
      if (!last || last.status === 'active') return;
      await deps.begin(db, {
        orgId: incident.org_id, incident, policyId: last.policy_id, alertId: last.alert_id, policy: store.readJson<PolicySnapshot>(last.policy), assigneeId: incident.assignee_id,
      }, actor, at, { restartOf: last.id, reason, ...(incident.assignee_id !== null && { assigneeId: incident.assignee_id }) });
    },
  };
}

/** Where a timeline note goes: the incident's organization and id. */
const about = (i: IncidentRow): Pick<EscalationRow, 'org_id' | 'incident_id'> => ({ org_id: i.org_id, incident_id: i.id });

import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { retriedTransaction } from '../../db/retry.ts';
import type { Actor } from '../../lib/actor.ts';
import { iso, isoOrNull, type Clock } from '../../lib/clock.ts';
import { AppError, conflict, notFound } from '../../lib/errors.ts';
import { newId, orderedId } from '../../lib/ids.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import { OPEN_STATUSES, type AlertStatus, type Severity } from '../alerts/alerts-fns.ts';
import type { AnalyticsService } from '../analytics/analytics-service.ts';
import type { AlertWriter } from '../alerts/alert-writer.ts';
import { canMove, toIncident, worse } from './incidents-fns.ts';
import { forIncident, type NotificationRow } from '../notifications/notifications-repo.ts';
import type { IncidentEventRow, IncidentFilter, IncidentRow, IncidentsRepo } from './incidents-repo.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { Incident, IncidentListQuery, IncidentStatus, NoteBody, SnoozeBody, TimelineEntry, UpdateIncidentBody } from './incidents-schemas.ts';
import { MAX_DETAIL_ITEMS, OPEN_INCIDENT_STATUSES, TIMELINE_TYPES } from './incidents-schemas.ts';
import { channelOf, isChannelType } from '../notifications/channels/registry.ts';
import { targetShownTo } from '../notifications/channels/target-fns.ts';

type TimelineType = (typeof TIMELINE_TYPES)[number];

const SYSTEM: Actor = { type: 'system', id: null };

export interface IncidentAlertRef {
  id: string;
  /** The incident the alert is in, if any. */
  incidentId: string | null;
  orgId: string;
  severity: string;
  clientId: string | null;
  /** What analytics keys an incident it opens by (its first alert's). */
  integrationId: string | null;
  fingerprint: string;
  title: string;
  labels: Record<string, string>;
}

/** A workflow's `create_incident` for one alert: the incident it opens or joins is its group's. */
interface IncidentOpening {
  workflowId: string;
  groupKey: string;
  title: string;
  alert: IncidentAlertRef;
}

/** What analytics keeps of incidents (analytics-service.ts): opened, and the first acknowledgement and resolution. */
export type IncidentAnalytics = Pick<AnalyticsService, 'incidentOpened' | 'incidentReached'>;

/** What an incident's escalation does when the incident is answered or reassigned (the escalations module). */
export interface IncidentEscalation {
  incidentAnswered(db: Kysely<DB>, incident: IncidentRow, status: string, actor: Actor, at: number): Promise<void>;
  incidentReassigned(db: Kysely<DB>, incident: IncidentRow, userId: string | null, actor: Actor, at: number): Promise<void>;
  incidentRetriggered(db: Kysely<DB>, incident: IncidentRow, actor: Actor, at: number, reason: string): Promise<void>;
}

/** A job of the `incident-timers` queue: the end of a snooze (`until` tells it from a later snooze of the same incident). */
export interface IncidentTimer {
  kind: 'snooze_end';
  orgId: string;
  incidentId: string;
  until: number;
}

/** Queues a timer in the caller's transaction, due in `delayMs` (a job, so a restart keeps it). */
export type ScheduleTimer = (db: Kysely<DB>, timer: IncidentTimer, delayMs: number) => Promise<void>;

/**
 * The incident's own alerts, which joining and answering it change (the alert writer writes them). See
 * docs/paging.md#acknowledge-and-resolve-one-rule-for-an-incident-and-its-alerts.
 */
export type IncidentAlerts = Pick<AlertWriter, 'transitionOfIncident' | 'attachIncident'>;

export function incidentsService(deps: {
  store: Store; repo: IncidentsRepo; alerts: IncidentAlerts; audit: AuditService; clock: Clock; cursors: CursorCodec; escalation?: IncidentEscalation; analytics?: IncidentAnalytics;
  timers: ScheduleTimer;
  /** Told of every status change in its transaction, by any route (the notifications module updates the chat messages of its pages). */
  statusChanged?: (db: Kysely<DB>, incident: IncidentRow) => Promise<void>;
  /** How long a snooze "minute" lasts: 60,000 ms except in tests (ESCALATION_MINUTE_MS, as for policies' delays). */
  minuteMs: number;
}) {
  const { store, repo, audit, clock, cursors } = deps;

  const toEntry = (r: IncidentEventRow): TimelineEntry => ({
    id: r.id,
    type: r.type as TimelineType,
    actor: { type: r.actor_type as Actor['type'], id: r.actor_id },
    data: store.readJson<Record<string, unknown>>(r.data),
    createdAt: iso(r.created_at),
  });

  const notificationEntry = (n: NotificationRow, viewer: string | null): TimelineEntry => ({
    id: n.id,
    type: n.status === 'sent' ? 'notification_sent' : 'notification_failed',
    actor: SYSTEM,
    data: {
      notificationId: n.id, source: n.source, channel: n.channel, target: targetShownTo(isChannelType(n.channel) ? channelOf(n.channel) : undefined, n, viewer), attempts: Number(n.attempts),
      ...(n.step !== null && { step: Number(n.step) }), ...(n.recipient_id !== null && { recipientId: n.recipient_id }), ...(n.last_error !== null && { error: n.last_error }),
    },
    createdAt: iso(n.sent_at ?? n.updated_at),
  });

  async function record(db: Kysely<DB>, incident: Pick<IncidentRow, 'id' | 'org_id'>, type: TimelineType, actor: Actor, data: Record<string, unknown>, at: number): Promise<IncidentEventRow> {
    const row: IncidentEventRow = { id: orderedId('ine', at), org_id: incident.org_id, incident_id: incident.id, type, actor_type: actor.type, actor_id: actor.id, data: JSON.stringify(data), created_at: at };
    await repo.addEvent(db, row);
    return row;
  }

  /**
   * Moves the incident, and with it its alerts: acknowledged, its firing alerts are acknowledged; resolved, its
   * open alerts are resolved. Acknowledged or resolved, however (API, dashboard, its alerts, a page's link), its
   * escalation stops in this transaction and pages not yet sent are dropped. `data` says why, when it is not
   * the actor's own choice.
   */
  async function setStatus(db: Kysely<DB>, incident: IncidentRow, to: IncidentStatus, actor: Actor, at: number, data: Record<string, unknown> = {}): Promise<IncidentRow> {
    if (incident.status === to) return incident;
    const updated = await repo.update(db, incident.org_id, incident.id, {
      status: to,
      updated_at: at,
      ...(to === 'acknowledged' && { acknowledged_at: incident.acknowledged_at ?? at }),
      ...(to === 'resolved' && { resolved_at: at }),
      ...(to === 'triggered' && { acknowledged_at: null }),
      // Any move ends a snooze: its timer then finds the incident changed and does nothing.
      snoozed_until: null,
    });
    await record(db, incident, 'status_changed', actor, { from: incident.status, to, ...data }, at);
    await deps.statusChanged?.(db, updated as IncidentRow);
    if (to === 'acknowledged') await deps.alerts.transitionOfIncident(db, incident.org_id, incident.id, ['firing'], 'acknowledged', actor, at);
    if (to === 'resolved') await deps.alerts.transitionOfIncident(db, incident.org_id, incident.id, OPEN_STATUSES, 'resolved', actor, at);
    if (to !== 'triggered') await deps.escalation?.incidentAnswered(db, updated as IncidentRow, to, actor, at);
    else await deps.escalation?.incidentRetriggered(db, updated as IncidentRow, actor, at, typeof data.reason === 'string' ? data.reason : 'retriggered');
    // After the escalation has cancelled the pages still pending: a page's record locks its row and then this
    // incident's analytics row, so an answer taking them the other way round would deadlock with it (docs/architecture.md, "Lock order").
    if (to !== 'triggered') await deps.analytics?.incidentReached(db, incident.org_id, incident.id, to === 'acknowledged' ? 'ack' : 'resolve', at);
    return updated as IncidentRow;
  }

  async function setAssignee(db: Kysely<DB>, incident: IncidentRow, userId: string | null, actor: Actor, at: number, data: Record<string, unknown> = {}): Promise<IncidentRow> {
    if (incident.assignee_id === userId) return incident;
    const updated = await repo.update(db, incident.org_id, incident.id, { assignee_id: userId, updated_at: at });
    await record(db, incident, 'assigned', actor, { from: incident.assignee_id, to: userId, ...data }, at);
    await deps.escalation?.incidentReassigned(db, updated as IncidentRow, userId, actor, at);
    return updated as IncidentRow;
  }

  /** A new incident numbered `number` for a workflow's group, with its timeline's first entry; the counter lock held. */
  async function open(db: Kysely<DB>, p: IncidentOpening, number: number, at: number): Promise<IncidentRow> {
    const a = p.alert;
    const incident: IncidentRow = {
      id: newId('inc'), org_id: a.orgId, number, workflow_id: p.workflowId, group_key: p.groupKey,
      title: p.title, severity: a.severity, status: 'triggered', assignee_id: null, alert_count: 0,
      client_id: a.clientId, acknowledged_at: null, resolved_at: null, created_at: at, updated_at: at, snoozed_until: null,
    };
    await repo.insert(db, incident);
    await repo.setCounter(db, a.orgId, number);
    await record(db, incident, 'opened', SYSTEM, { workflowId: p.workflowId, groupKey: p.groupKey }, at);
    await deps.analytics?.incidentOpened(db, { id: incident.id, orgId: a.orgId, severity: a.severity, clientId: a.clientId, openedAt: at },
      { orgId: a.orgId, severity: a.severity, clientId: a.clientId, integrationId: a.integrationId, fingerprint: a.fingerprint, title: a.title, labels: a.labels });
    return incident;
  }

  return {
    /** `caller` is the member behind a session (for `mine`), null for an API key. */
    list(orgId: string, q: IncidentListQuery, caller: string | null = null): Promise<Page<Incident>> {
      if (q.mine === true && caller === null) {
        throw new AppError('VALIDATION_ERROR', 'Incident list query is invalid', [{ path: '/mine', message: 'needs a signed-in member; an API key belongs to nobody' }]);
      }
      const f: IncidentFilter = {
        ...(q.status !== undefined && { status: q.status.split(',') }),
        ...(q.assigneeId !== undefined && { assigneeId: q.assigneeId }),
        ...(q.clientId !== undefined && { clientId: q.clientId }),
        ...(q.mine === true && caller !== null && { mine: caller }),
      };
      const limit = q.limit ?? 25;
      return paginate(cursors, `${orgId}:incidents:${JSON.stringify(f)}`, { limit, cursor: q.cursor },
        (after) => repo.page(store.db, orgId, f, limit, after), () => repo.count(store.db, orgId, f), toIncident);
    },

    /** An incident with its alerts and timeline, as `viewer` (a member's id, null for a key) may see it: another person's URL targets by their host. */
    async get(orgId: string, id: string, viewer: string | null) {
      const row = await repo.get(store.db, orgId, id);
      if (!row) throw notFound('Incident');
      const [alerts, events, notifications] = await Promise.all([
        repo.alerts(store.db, orgId, id), repo.timeline(store.db, orgId, id), forIncident(store.db, orgId, id, MAX_DETAIL_ITEMS),
      ]);
      // Notifications join the timeline from their own log (written once per attempt's outcome, never twice).
      // A cancelled page never left: its incident's `escalation_stopped` entry says why.
      const sent = notifications.filter((n) => n.status === 'sent' || n.status === 'failed').map((n) => notificationEntry(n, viewer));
      const timeline = [...events.map(toEntry), ...sent].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)).slice(-MAX_DETAIL_ITEMS);
      return {
        ...toIncident(row),
        alerts: alerts.map((a) => ({ id: a.id, title: a.title, severity: a.severity as Severity, status: a.status as AlertStatus, fingerprint: a.fingerprint, createdAt: iso(a.created_at) })),
        timeline,
      };
    },

    async update(orgId: string, actor: Actor, id: string, input: UpdateIncidentBody): Promise<Incident> {
      // Resolving or acknowledging changes the incident's alerts too, while the workflow runner may be joining one
      // of them to it: on PostgreSQL the two can deadlock, and the loser runs again whole.
      const row = await retriedTransaction(store.db, async (trx) => {
        let incident = await repo.get(trx, orgId, id);
        if (!incident) throw notFound('Incident');
        const at = clock.now();
        if (input.assigneeId != null && !(await repo.userExists(trx, orgId, input.assigneeId))) {
          throw new AppError('VALIDATION_ERROR', 'Incident update is invalid', [{ path: '/assigneeId', message: 'no such user in this organization' }]);
        }
        if (input.status !== undefined) {
          if (!canMove(incident.status as IncidentStatus, input.status)) throw conflict('A resolved incident cannot be reopened; a new alert opens a new incident');
          incident = await setStatus(trx, incident, input.status, actor, at);
        }
        if (input.assigneeId !== undefined) incident = await setAssignee(trx, incident, input.assigneeId, actor, at);
        if (input.severity !== undefined && input.severity !== incident.severity) {
          const from = incident.severity;
          incident = (await repo.update(trx, orgId, id, { severity: input.severity, updated_at: at })) as IncidentRow;
          await record(trx, incident, 'severity_changed', actor, { from, to: input.severity }, at);
          await audit.record(trx, { orgId, action: 'incident.severity_changed', actor, target: { type: 'incident', id }, metadata: { from, to: input.severity } });
        }
        return incident;
      });
      return toIncident(row);
    },

    /**
     * Acknowledged for `minutes`, then triggered again (paging as a new trigger does) unless answered or moved by
     * then. The end is a queued job, so a restart keeps it. Snoozing again replaces the end.
     */
    async snooze(orgId: string, actor: Actor, id: string, input: SnoozeBody): Promise<Incident> {
      const at = clock.now();
      const until = at + input.minutes * deps.minuteMs;
      const row = await retriedTransaction(store.db, async (trx) => {
        let incident = await repo.get(trx, orgId, id);
        if (!incident) throw notFound('Incident');
        if (incident.status === 'resolved') throw conflict('A resolved incident cannot be snoozed');
        incident = await setStatus(trx, incident, 'acknowledged', actor, at, { reason: 'snoozed' });
        incident = (await repo.update(trx, orgId, id, { snoozed_until: until, updated_at: at })) as IncidentRow;
        await record(trx, incident, 'snoozed', actor, { minutes: input.minutes, until: iso(until) }, at);
        await audit.record(trx, { orgId, action: 'incident.snoozed', actor, target: { type: 'incident', id }, metadata: { minutes: input.minutes, until: iso(until) } });
        await deps.timers(trx, { kind: 'snooze_end', orgId, incidentId: id, until }, until - at);
        return incident;
      });
      return toIncident(row);
    },

    /** An `incident-timers` job: a snooze that is still the incident's last ends, and it is triggered again. */
    async handleTimer(timer: IncidentTimer): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        const incident = await repo.get(trx, timer.orgId, timer.incidentId);
        if (!incident || incident.status !== 'acknowledged' || Number(incident.snoozed_until) !== timer.until) return;
        await setStatus(trx, incident, 'triggered', SYSTEM, clock.now(), { reason: 'snooze_ended' });
      });
    },

    /** A note on the timeline (plain text, shown as text), audited with its length, not its words. */
    async addNote(orgId: string, actor: Actor, id: string, input: NoteBody): Promise<TimelineEntry> {
      const at = clock.now();
      const row = await store.db.transaction().execute(async (trx) => {
        const incident = await repo.get(trx, orgId, id);
        if (!incident) throw notFound('Incident');
        const r = await record(trx, incident, 'note_added', actor, { text: input.text }, at);
        await audit.record(trx, { orgId, action: 'incident.note_added', actor, target: { type: 'incident', id }, metadata: { length: input.text.length } });
        return r;
      });
      return toEntry(row);
    },

    /**
     * The incident of a workflow's `create_incident` for this alert: the open one with the same group key,
     * else a new one numbered next in the organization. The counter lock serializes openings per
     * organization, and the partial unique index on open (workflow, group key) backs it in the database.
     */
    async openOrJoin(db: Kysely<DB>, p: IncidentOpening, at: number): Promise<{ incident: IncidentRow; opened: boolean; already: boolean }> {
      // An alert belongs to one incident: in an open one already (another workflow grouped it), it stays there.
      const current = p.alert.incidentId ? await repo.get(db, p.alert.orgId, p.alert.incidentId) : undefined;
      if (current && (OPEN_INCIDENT_STATUSES as readonly string[]).includes(current.status)) return { incident: current, opened: false, already: true };
      // Joining needs no lock; opening takes the counter lock and looks again, since another transaction may
      // have opened the group's incident while this one waited for it. Then it lets the lock go at once: in a
      // burst on new groups every run waits here, and each holding the lock to its commit would pass it on one
      // whole run at a time (docs/architecture.md, "Lock order").
      let incident = await repo.findOpen(db, p.workflowId, p.groupKey);
      let opened = false;
      if (!incident) {
        const counter = await repo.lockCounter(db, p.alert.orgId);
        incident = await repo.findOpen(db, p.workflowId, p.groupKey);
        if (incident) await counter.letGo();
        else {
          incident = await open(db, p, counter.last + 1, at);
          opened = true;
        }
      }
      if (await deps.alerts.attachIncident(db, p.alert.orgId, p.alert.id, incident.id, at)) {
        const counted = await repo.countAlert(db, incident, p.alert.severity, at);
        await record(db, incident, 'alert_joined', SYSTEM, { alertId: p.alert.id }, at);
        return { incident: counted, opened, already: false };
      }
      return { incident: (await repo.get(db, p.alert.orgId, incident.id)) as IncidentRow, opened, already: false };
    },

    /**
     * A workflow's assignment; a user no longer in the organization (removed since the workflow was written) is skipped.
     * `member`: the user was read from the organization's members in this transaction (the on-call), so is one.
     */
    async assign(db: Kysely<DB>, incident: IncidentRow, userId: string, at: number, data: Record<string, unknown>, member = false): Promise<IncidentRow | null> {
      if (!member && !(await repo.userExists(db, incident.org_id, userId))) return null;
      return setAssignee(db, incident, userId, SYSTEM, at, data);
    },

    /** A removed member's incidents become unassigned, each with a timeline entry saying why. */
    async unassignMember(db: Kysely<DB>, orgId: string, userId: string, actor: Actor, at: number): Promise<void> {
      for (const incident of await repo.assignedTo(db, orgId, userId)) await setAssignee(db, incident, null, actor, at, { reason: 'member_removed' });
    },

    /** After an alert of the incident changed severity: the incident's is the highest among its alerts. */
    async refreshSeverity(db: Kysely<DB>, incident: IncidentRow, at: number): Promise<IncidentRow> {
      const severities = await repo.alertSeverities(db, incident.id);
      if (severities.length === 0) return incident;
      const highest = severities.reduce(worse);
      if (highest === incident.severity) return incident;
      return (await repo.update(db, incident.org_id, incident.id, { severity: highest, updated_at: at })) as IncidentRow;
    },

    /**
     * One of the incident's alerts was acknowledged or resolved (by `actor`), in the caller's transaction: once
     * none of its alerts is open the incident is resolved; once none is firing (the rest acknowledged or
     * suppressed) a triggered incident is acknowledged.
     */
    async alertAnswered(db: Kysely<DB>, orgId: string, incidentId: string, actor: Actor, at: number): Promise<void> {
      const incident = await repo.get(db, orgId, incidentId);
      if (!incident || !(OPEN_INCIDENT_STATUSES as readonly string[]).includes(incident.status)) return;
      const { open, firing } = await repo.openAlertCounts(db, incidentId);
      if (open === 0) await setStatus(db, incident, 'resolved', actor, at, { reason: 'alerts_resolved' });
      else if (firing === 0 && incident.status === 'triggered') await setStatus(db, incident, 'acknowledged', actor, at, { reason: 'alerts_acknowledged' });
    },


    /**
     * Acknowledges or resolves an incident in the caller's transaction (a page's link, an answer through a channel:
     * `data` says how, e.g. `{via: "SMS reply from +49…"}`): null when there is no
     * such incident; a resolved one stays resolved (returned as it is).
     */
    async respond(db: Kysely<DB>, orgId: string, id: string, to: 'acknowledged' | 'resolved', actor: Actor, at: number, data: Record<string, unknown> = {}): Promise<IncidentRow | null> {
      const incident = await repo.get(db, orgId, id);
      if (!incident) return null;
      if (incident.status === 'resolved' || (to === 'acknowledged' && incident.status === 'acknowledged')) return incident;
      return setStatus(db, incident, to, actor, at, data);
    },

    row: (db: Kysely<DB>, orgId: string, id: string) => repo.get(db, orgId, id),
  };
}
export type IncidentsService = ReturnType<typeof incidentsService>;

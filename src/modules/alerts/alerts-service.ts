import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import { retriedTransaction } from '../../db/retry.ts';
import type { DB } from '../../db/schema.ts';
import { actorFrom, type Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso, isoOrNull } from '../../lib/clock.ts';
import { AppError, invalid, notFound } from '../../lib/errors.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import { BY_FILTER_CAP, byFilterStatuses, SEVERITIES, STATUSES, type AlertStatus, type Severity } from './alerts-fns.ts';
import type { AlertFilter, AlertListRow, AlertRow, AlertsRepo } from './alerts-repo.ts';
import type { AlertWriter } from './alert-writer.ts';
import type { AuditService } from '../audit/audit-service.ts';
import { HISTORY_MAX, type Alert, type AlertDetail, type AlertFilterFields, type AlertListQuery, type BulkItem, type ByFilterBody, type ByFilterOutcome } from './alerts-schemas.ts';

type Action = 'acknowledge' | 'resolve';

/** How a sender names one of its alerts: the fingerprint of the open one (its own key), or the alert's id. */
export type SenderTarget = { fingerprint: string } | { id: string };

/** Which statuses each action moves from, and which make it a harmless repeat. */
const RULES: Record<Action, { to: 'acknowledged' | 'resolved'; from: AlertStatus[]; noop: AlertStatus[] }> = {
  acknowledge: { to: 'acknowledged', from: ['firing', 'suppressed'], noop: ['acknowledged'] },
  resolve: { to: 'resolved', from: ['firing', 'suppressed', 'acknowledged'], noop: ['resolved'] },
};

/**
 * A comma-separated filter of known values (case-insensitive). An unknown value is a 400: a typo would
 * otherwise match nothing and look like an empty list.
 */
function csv<T extends string>(field: string, v: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (v === undefined) return undefined;
  const values = v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const unknown = values.filter((s) => !(allowed as readonly string[]).includes(s));
  if (unknown.length > 0) throw invalid(`/${field}`, `unknown value ${JSON.stringify(unknown[0])}; must be a comma-separated list of ${allowed.join(', ')}`);
  return values as T[];
}

/** What an answered alert's incident does (the incidents module): see docs/paging.md#acknowledge-and-resolve-one-rule-for-an-incident-and-its-alerts. */
export interface AlertIncidents {
  alertAnswered(db: Kysely<DB>, orgId: string, incidentId: string, actor: Actor, at: number): Promise<void>;
}

export function alertsService(deps: { store: Store; repo: AlertsRepo; writer: Pick<AlertWriter, 'transition'>; incidents: AlertIncidents; audit: Pick<AuditService, 'record'>; clock: Clock; cursors: CursorCodec }) {
  const { store, repo, clock, cursors } = deps;

  const toAlert = (r: AlertListRow): Alert => ({
    id: r.id,
    title: r.title,
    severity: r.severity as Severity,
    status: r.status as AlertStatus,
    source: r.source,
    description: r.description,
    fingerprint: r.fingerprint,
    labels: store.readJson(r.labels),
    annotations: store.readJson(r.annotations),
    integrationId: r.integration_id,
    clientId: r.client_id,
    incidentId: r.incident_id,
    suppressionId: r.status === 'suppressed' ? r.suppression_id : null,
    occurrences: r.occurrences,
    flapping: r.flapping === 1,
    lastSeenAt: iso(r.last_seen_at),
    acknowledgedAt: isoOrNull(r.acknowledged_at),
    acknowledgedBy: actorFrom(r.acknowledged_by_type, r.acknowledged_by_id),
    resolvedAt: isoOrNull(r.resolved_at),
    resolvedBy: actorFrom(r.resolved_by_type, r.resolved_by_id),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  });
  const toDetail = async (r: AlertRow): Promise<AlertDetail> => ({
    ...toAlert(r),
    payload: store.readJson(r.payload),
    incidentNumber: r.incident_id === null ? null : await repo.incidentNumber(store.db, r.org_id, r.incident_id),
    history: r.integration_id === null ? []
      : (await repo.history(store.db, r.org_id, r.integration_id, r.fingerprint, HISTORY_MAX)).map((h) => ({ alertId: h.id, firedAt: iso(h.created_at), resolvedAt: isoOrNull(h.resolved_at) })),
  });

  function filterOf(q: AlertFilterFields): AlertFilter {
    const labels = (q.label ?? []).map((l): [string, string] => {
      const i = l.indexOf('=');
      return [l.slice(0, i), l.slice(i + 1)];
    });
    const f: AlertFilter = { labels };
    const status = csv('status', q.status, STATUSES);
    const severity = csv('severity', q.severity, SEVERITIES);
    if (status) f.status = status;
    if (severity) f.severity = severity;
    if (q.source !== undefined) f.source = q.source;
    if (q.fingerprint !== undefined) f.fingerprint = q.fingerprint;
    if (q.integrationId !== undefined) f.integrationId = q.integrationId;
    if (q.clientId !== undefined) f.clientId = q.clientId;
    if (q.since !== undefined) f.since = Date.parse(q.since);
    if (q.until !== undefined) f.until = Date.parse(q.until);
    if (q.q) f.q = q.q;
    if (q.flapping !== undefined) f.flapping = q.flapping === 'true';
    return f;
  }

  /**
   * Applies an action to one alert: the move itself is one conditional UPDATE, so racing callers agree; its
   * incident follows in the same transaction (answered once none of its alerts is left firing or open). The alert
   * and its incident are locked in that order, and a workflow run or escalation can take them the other way: a
   * deadlock rolls the whole answer back, so it is tried again rather than answered 500.
   */
  function act(orgId: string, actor: Actor, id: string, action: Action): Promise<AlertRow> {
    const rule = RULES[action];
    return retriedTransaction(store.db, async (trx) => {
      const at = clock.now();
      const moved = await deps.writer.transition(trx, orgId, id, rule.from, rule.to, actor, at);
      if (moved) {
        if (moved.incident_id !== null) await deps.incidents.alertAnswered(trx, orgId, moved.incident_id, actor, at);
        return moved;
      }
      const current = await repo.get(trx, orgId, id);
      if (!current) throw notFound('Alert');
      if (rule.noop.includes(current.status as AlertStatus)) return current;
      throw new AppError('CONFLICT', `Cannot ${action} an alert that is ${current.status}`);
    });
  }

  /** The organization's alert of that id; 404 for none (or another organization's). */
  async function found(orgId: string, id: string): Promise<AlertRow> {
    const row = await repo.get(store.db, orgId, id);
    if (!row) throw notFound('Alert');
    return row;
  }

  /** The alert a sender names by its own key (an open alert's fingerprint) or by id, if that sender's integration sent it. */
  async function ofSender(orgId: string, integrationId: string, target: SenderTarget): Promise<AlertRow | undefined> {
    const row = 'fingerprint' in target
      ? await repo.openByFingerprint(store.db, orgId, target.fingerprint)
      : await repo.get(store.db, orgId, target.id);
    return row?.integration_id === integrationId ? row : undefined;
  }

  async function bulk(orgId: string, actor: Actor, action: Action, ids: string[]): Promise<BulkItem[]> {
    const results: BulkItem[] = [];
    for (const id of ids) {
      try {
        const row = await act(orgId, actor, id, action);
        results.push({ id, ok: true, status: row.status as AlertStatus });
      } catch (err) {
        if (!(err instanceof AppError) || (err.code !== 'NOT_FOUND' && err.code !== 'CONFLICT')) throw err;
        results.push({ id, ok: false, code: err.code });
      }
    }
    return results;
  }

  return {
    list(orgId: string, query: AlertListQuery): Promise<Page<Alert>> {
      const filter = filterOf(query);
      // Filters are part of the cursor's scope: a cursor only continues the list it came from.
      const scope = `${orgId}:alerts:${JSON.stringify(filter)}`;
      const limit = query.limit ?? 25;
      return paginate(cursors, scope, { limit, cursor: query.cursor },
        (after) => repo.page(store.db, orgId, filter, limit, after), () => repo.count(store.db, orgId, filter), toAlert);
    },

    get: async (orgId: string, id: string): Promise<AlertDetail> => toDetail(await found(orgId, id)),

    /** The alert as a list shows it, without the detail's payload, incident number and history: what a page says. */
    brief: toAlert,

    act: async (orgId: string, actor: Actor, id: string, action: Action): Promise<AlertDetail> => toDetail(await act(orgId, actor, id, action)),

    /**
     * A sender's acknowledge or resolve by its own key (PagerDuty's `dedup_key`, Opsgenie's alias or alert id),
     * through the same rule as every other: the alert it names, if its integration sent it. Null when there is
     * nothing to act on (none open, another integration's, or already past the action), which the vendors'
     * APIs accept and ignore.
     */
    async actAsSender(orgId: string, integrationId: string, target: SenderTarget, action: Action): Promise<AlertRow | null> {
      const row = await ofSender(orgId, integrationId, target);
      if (!row) return null;
      try {
        return await act(orgId, { type: 'integration', id: integrationId }, row.id, action);
      } catch (err) {
        if (err instanceof AppError && (err.code === 'NOT_FOUND' || err.code === 'CONFLICT')) return null;
        throw err;
      }
    },

    /** A sender's new title or description for an alert it sent (Opsgenie's update calls); null when there is none. */
    async editAsSender(orgId: string, integrationId: string, target: SenderTarget, changes: { title?: string; description?: string | null }): Promise<AlertRow | null> {
      const row = await ofSender(orgId, integrationId, target);
      return row ? ((await repo.edit(store.db, orgId, row.id, changes, clock.now())) ?? null) : null;
    },

    bulk,

    /**
     * "Acknowledge/resolve all matching": a dry run counts the alerts the filter selects that the action can
     * change, as of now; the confirmed request acts on those created up to that moment, at most the cap, each
     * through the same rule as one alert (its incident follows). If more match than the person confirmed (a
     * window ended, an alert was reopened), nothing changes: 409, count again. One audit event says what was asked and done.
     */
    async byFilter(orgId: string, actor: Actor, body: ByFilterBody): Promise<ByFilterOutcome> {
      const filter = filterOf(body.filter);
      const base = { dryRun: body.dryRun === true, cap: BY_FILTER_CAP, changed: 0, unchanged: 0, remaining: 0 };
      if (!body.dryRun && !body.confirm) throw invalid('/confirm', 'required unless dryRun is true: count first, then repeat the count and asOf the person agreed to');
      const asOf = body.dryRun ? clock.now() : Date.parse(body.confirm!.asOf);
      const statuses = byFilterStatuses(RULES[body.action].from, filter.status as AlertStatus[] | undefined);
      const scoped: AlertFilter = { ...filter, status: statuses, until: Math.min(filter.until ?? Infinity, asOf + 1) };
      const matching = statuses.length === 0 ? 0 : await repo.count(store.db, orgId, scoped);
      if (body.dryRun) return { ...base, matching, asOf: iso(asOf), remaining: Math.min(matching, BY_FILTER_CAP) };
      const confirmed = body.confirm!.count;
      if (matching > confirmed) throw new AppError('CONFLICT', `${matching} alerts match now, ${confirmed} were confirmed: count again`);
      const ids = matching === 0 ? [] : await repo.ids(store.db, orgId, scoped, BY_FILTER_CAP);
      const results = await bulk(orgId, actor, body.action, ids);
      const changed = results.filter((r) => r.ok).length;
      const outcome = { ...base, matching, asOf: iso(asOf), changed, unchanged: results.length - changed, remaining: Math.max(0, matching - ids.length) };
      await deps.audit.record(store.db, {
        orgId, actor, action: `alert.${body.action === 'acknowledge' ? 'acknowledged' : 'resolved'}_matching`,
        metadata: { filter: body.filter, matching, changed: outcome.changed, unchanged: outcome.unchanged, remaining: outcome.remaining },
      });
      return outcome;
    },
  };
}
export type AlertsService = ReturnType<typeof alertsService>;

import { changeFacts, type Fact } from '../analytics/analytics-fns.ts';
import type { LiveChange } from '../live/live-feed.ts';
import { isFlapChange } from './flap-fns.ts';

/**
 * What follows from a change of an alert, decided here once for every writer (ingest, the API, incidents,
 * workflows, suppression windows): the status counters behind `meta.total`, the outbox event that workflows
 * and the incident act on, and the live stream's event. The writer (alert-writer.ts) stores them in the
 * transaction of the change.
 */

/** An alert as the rules read it: before a change (null: it did not exist) and after. */
export interface AlertState {
  id: string;
  org_id: string;
  status: string;
  occurrences: number;
  incident_id: string | null;
  severity: string;
  title: string;
  created_at: number;
  updated_at: number;
  /** What analytics counts it under (analytics-fns.ts); `labels` as stored (JSON text on SQLite). */
  fingerprint: string;
  client_id: string | null;
  integration_id: string | null;
  labels: unknown;
}

/** One row of the outbox (`alert_events`): what the relay hands to the workflow runner. */
export interface OutboxEvent {
  orgId: string;
  alertId: string;
  /** `alert.flapping` / `alert.stable`: its fingerprint starts or stops flapping (the notices, not workflows). */
  type: 'alert.created' | 'alert.acknowledged' | 'alert.resolved' | 'alert.reopened' | 'alert.flapping' | 'alert.stable';
  at: number;
}

/** Everything one transaction's alert changes call for, gathered so that each table is written once. */
export interface Effects {
  /** `org \u0000 status` → how many alerts more (or fewer) the organization has in that status. */
  counts: Map<string, number>;
  events: OutboxEvent[];
  live: LiveChange[];
  /** What analytics counts, stored as rollups (analytics-sql.ts). */
  facts: Fact[];
  /** Changes that count towards flapping (flap-fns.ts), applied by flap-writes.ts before the rest is stored. */
  flaps: AlertState[];
}

export const noEffects = (): Effects => ({ counts: new Map(), events: [], live: [], facts: [], flaps: [] });

/** One job's effects joined to its batch's (kept apart until the job is known to have succeeded). */
export function mergeEffects(into: Effects, from: Effects): void {
  for (const [key, n] of from.counts) {
    const sum = (into.counts.get(key) ?? 0) + n;
    if (sum === 0) into.counts.delete(key);
    else into.counts.set(key, sum);
  }
  into.events.push(...from.events);
  into.live.push(...from.live);
  into.facts.push(...from.facts);
  into.flaps.push(...from.flaps);
}

/** How many outbox and live rows a batch stored: what its commit should wake. */
export interface Stored {
  events: number;
  live: number;
}
export const stored = (fx: Effects): Stored => ({ events: fx.events.length, live: fx.live.length });

const bump = (counts: Map<string, number>, orgId: string, status: string, by: number) => {
  const key = `${orgId}\u0000${status}`;
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
};

/** The counters' changes as rows, in (organization, status) order: two writers lock shared rows in one order. */
export function countRows(counts: Map<string, number>): Array<{ orgId: string; status: string; n: number }> {
  return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, n]) => {
    const [orgId, status] = key.split('\u0000') as [string, string];
    return { orgId, status, n };
  });
}

/**
 * Adds to `into` what the change from `before` to `after` calls for. `workflows`: the organization has an
 * enabled workflow (only then are events worth queueing, except for an alert in an incident, which follows its
 * alerts whatever the workflows).
 *
 * - Counters: a new alert counts in its status; a move leaves the old status for the new one.
 * - Outbox: a new alert that fires (or arrives acknowledged) is `alert.created`; a move to acknowledged or
 *   resolved is `alert.acknowledged` / `alert.resolved`; suppressed back to firing is `alert.reopened`. A new
 *   alert stored suppressed, and a move into suppressed, are no events: workflows do not run for them.
 * - Flapping: a new alert of an integration, or its resolution, is a change its fingerprint's flap state counts.
 * - Live: a new alert is `alert.created`; a move of status, another occurrence or joining an incident is
 *   `alert.updated` (`alert.resolved` when it was resolved).
 */
export function addEffects(into: Effects, before: AlertState | null, after: AlertState, workflows: boolean): void {
  into.facts.push(...changeFacts(before, after));
  if (isFlapChange(before, after)) into.flaps.push(after);
  const live = (type: LiveChange['type']) =>
    into.live.push({ orgId: after.org_id, type, id: after.id, status: after.status, severity: after.severity, title: after.title, at: after.updated_at });
  if (before === null) {
    bump(into.counts, after.org_id, after.status, 1);
    if (workflows && (after.status === 'firing' || after.status === 'acknowledged')) {
      into.events.push({ orgId: after.org_id, alertId: after.id, type: 'alert.created', at: after.created_at });
    }
    live('alert.created');
    return;
  }
  const moved = before.status !== after.status;
  if (moved) {
    bump(into.counts, after.org_id, before.status, -1);
    bump(into.counts, after.org_id, after.status, 1);
    const type = after.status === 'acknowledged' ? 'alert.acknowledged'
      : after.status === 'resolved' ? 'alert.resolved'
        : after.status === 'firing' && before.status === 'suppressed' ? 'alert.reopened' : null;
    if (type && (workflows || after.incident_id !== null)) into.events.push({ orgId: after.org_id, alertId: after.id, type, at: after.updated_at });
  }
  if (moved || before.occurrences !== after.occurrences || before.incident_id !== after.incident_id) {
    live(after.status === 'resolved' && before.status !== 'resolved' ? 'alert.resolved' : 'alert.updated');
  }
}

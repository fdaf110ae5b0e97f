import type { Kysely } from 'kysely';
import type { Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { iso, type Clock } from '../../lib/clock.ts';
import { invalid } from '../../lib/errors.ts';
import { DAY_MS } from '../schedules/zone-fns.ts';
import {
  bucketEdges, bucketOf, MAX_RANGE_DAYS, MEASURES, rollup, splitMonths, spreads, zeroCounts,
  type AlertDims, type Bucket, type CountRow, type Counts, type Fact, type OrgAnalytics, type Spread,
} from './analytics-fns.ts';
import type { AnalyticsRepo, IncidentFactRow } from './analytics-repo.ts';
import type { DayRangeQuery, Noisy, NoisyQuery, PagesPerPerson, ResponseTimes, SeriesQuery, Volume } from './analytics-schemas.ts';

const DEFAULT_SPAN_MS = 7 * DAY_MS;

type Durations = ResponseTimes['overall'];

/** A page delivered: its alert, its incident (null for none), the member it went to (null for a target that is no member), when. */
export interface PageSent {
  alert: AlertDims;
  incidentId: string | null;
  recipientId: string | null;
  at: number;
}

/** An incident as it opened; analytics keys it by its first alert's integration and labels. */
export interface OpenedIncident {
  id: string;
  orgId: string;
  severity: string;
  clientId: string | null;
  openedAt: number;
}

/** Incidents remembered as paged already, at most (a few hundred KiB). */
const PAGED_REMEMBERED = 10_000;

export function analyticsService(deps: { store: Store; repo: AnalyticsRepo; clock: Clock }) {
  const { store, repo, clock } = deps;
  /**
   * Incidents whose time to page was found set already (an update of their row changed nothing): it is never unset,
   * so their later pages skip the update. A storm's incident is paged once per alert and person; without this, each
   * page cost a statement (a round trip on PostgreSQL) that changed nothing. Bounded: forgotten wholesale when full.
   */
  const paged = new Set<string>();
  const remember = (incidentId: string) => {
    if (paged.size >= PAGED_REMEMBERED) paged.clear();
    paged.add(incidentId);
  };

  async function settings(db: Kysely<DB>, orgId: string): Promise<OrgAnalytics> {
    const row = await repo.settings(db, orgId);
    return { zone: row?.timezone ?? 'UTC', labels: row ? store.readJson<string[]>(row.analytics_labels) : [] };
  }

  /** The range asked for, widened to whole buckets, and the buckets' edges. */
  function frame(q: { from?: string | undefined; to?: string | undefined }, bucket: Bucket, zone: string): { edges: number[]; from: number; to: number } {
    const to = q.to !== undefined ? Date.parse(q.to) : clock.now();
    const from = q.from !== undefined ? Date.parse(q.from) : to - DEFAULT_SPAN_MS;
    if (!(to > from)) throw invalid('/to', 'must be after from');
    if (to - from > MAX_RANGE_DAYS[bucket] * DAY_MS) throw invalid('/from', `is too far before to: ${bucket} buckets cover at most ${MAX_RANGE_DAYS[bucket]} days`);
    const edges = bucketEdges(from, to, bucket, zone);
    return { edges, from: edges[0] as number, to: edges[edges.length - 1] as number };
  }

  function groupDim(groupBy: string | undefined, org: OrgAnalytics): string | null {
    if (groupBy === undefined) return null;
    if (groupBy.startsWith('label:') && !org.labels.includes(groupBy.slice('label:'.length))) {
      throw invalid('/groupBy', `label "${groupBy.slice('label:'.length)}" is not rolled up; the organization's analyticsLabels are: ${org.labels.join(', ') || 'none'}`);
    }
    return groupBy;
  }

  /** Display names of client and integration groups. */
  async function namesOf(orgId: string, dim: string | null, keys: string[]): Promise<Map<string, string>> {
    const table = dim === 'client' ? 'clients' : dim === 'integration' ? 'integrations' : null;
    return table ? repo.names(store.db, orgId, table, keys.filter((k) => k !== '')) : new Map();
  }

  const addCounts = (into: Counts, r: Partial<Counts>) => {
    for (const m of MEASURES) into[m] += r[m] ?? 0;
  };

  return {
    settings,

    /**
     * Counts `facts` in the caller's transaction: the alert writer calls this with the changes it writes, so a
     * change and its counts commit together or not at all.
     */
    async record(db: Kysely<DB>, facts: readonly Fact[]): Promise<void> {
      if (facts.length === 0) return;
      const orgs = new Map<string, OrgAnalytics>();
      for (const f of facts) if (!orgs.has(f.alert.orgId)) orgs.set(f.alert.orgId, await settings(db, f.alert.orgId));
      await repo.apply(db, rollup(facts, (id) => orgs.get(id) as OrgAnalytics));
    },

    /** An incident opened: its row of durations, keyed by its first alert's dimensions, and its count. */
    async incidentOpened(db: Kysely<DB>, i: OpenedIncident, alert: AlertDims): Promise<void> {
      const org = await settings(db, i.orgId);
      const labels = Object.fromEntries(org.labels.flatMap((k) => (alert.labels[k] === undefined ? [] : [[k, alert.labels[k]]])));
      const row: IncidentFactRow = {
        incident_id: i.id, org_id: i.orgId, opened_at: i.openedAt, severity: i.severity, client_id: i.clientId ?? '',
        integration_id: alert.integrationId ?? '', labels: JSON.stringify(labels), ack_ms: null, resolve_ms: null, page_ms: null,
      };
      await repo.openIncident(db, row);
      await repo.apply(db, rollup([{ kind: 'incident_opened', alert: { ...alert, severity: i.severity, clientId: i.clientId }, at: i.openedAt }], () => org));
    },

    /**
     * Pages about alerts were delivered (the records of one commit): each counted for its alert and, when it went
     * to a member, for them (at night or in working hours on their clock), in one statement per table for them
     * all; the first page of an incident keeps its time to page.
     */
    async pagesSent(db: Kysely<DB>, pages: readonly PageSent[]): Promise<void> {
      const orgs = new Map<string, OrgAnalytics>();
      // A commit often records several pages to one person: their zone is read once.
      const zones = new Map<string, string>();
      const facts: Fact[] = [];
      for (const p of pages) {
        let org = orgs.get(p.alert.orgId);
        if (!org) orgs.set(p.alert.orgId, (org = await settings(db, p.alert.orgId)));
        let person = null;
        if (p.recipientId !== null) {
          const member = `${p.alert.orgId}\u0000${p.recipientId}`;
          let zone = zones.get(member);
          if (zone === undefined) zones.set(member, (zone = (await repo.userZone(db, p.alert.orgId, p.recipientId)) ?? org.zone));
          person = { userId: p.recipientId, zone };
        }
        facts.push({ kind: 'page_sent', alert: p.alert, at: p.at, person });
      }
      if (facts.length > 0) await repo.apply(db, rollup(facts, (id) => orgs.get(id) as OrgAnalytics));
      // In the order they were sent: an incident's first page here is its earliest.
      const reached = new Set<string>();
      for (const p of pages) {
        if (p.incidentId === null || reached.has(p.incidentId) || paged.has(p.incidentId)) continue;
        reached.add(p.incidentId);
        const [r] = await repo.incidentReached(db, p.alert.orgId, p.incidentId, 'page_ms', p.at);
        if (Number(r?.numUpdatedRows ?? 0) === 0) remember(p.incidentId);
      }
    },

    /** The incident was acknowledged, resolved or paged for the first time: its duration is kept (later ones are not). */
    incidentReached: (db: Kysely<DB>, orgId: string, incidentId: string, what: 'ack' | 'resolve' | 'page', at: number) =>
      repo.incidentReached(db, orgId, incidentId, `${what}_ms`, at),

    async volume(orgId: string, q: SeriesQuery): Promise<Volume> {
      const org = await settings(store.db, orgId);
      const bucket = q.bucket ?? 'day';
      const { edges, from, to } = frame(q, bucket, org.zone);
      const dim = groupDim(q.groupBy, org);
      const clientId = q.clientId ?? null;
      if (clientId !== null && dim !== null && dim !== 'client') throw invalid('/groupBy', 'with clientId, only groupBy=client (or none) is counted');
      const table = bucket === 'hour' ? 'analytics_hourly' : 'analytics_daily';
      // Every dimension's rows add up to the total; severity has the fewest rows. Weeks and months are summed in the database.
      const rows: CountRow[] = await repo.counts(store.db, table, orgId, clientId !== null ? 'client' : (dim ?? 'severity'), clientId, from, to,
        bucket === 'week' || bucket === 'month' ? edges : undefined);
      const n = edges.length - 1;
      const totals = zeroCounts();
      const groups = new Map<string, { totals: Counts; series: Counts[] }>();
      for (const r of rows) {
        const b = bucketOf(edges, r.time);
        if (b < 0) continue;
        addCounts(totals, r);
        if (dim === null) continue;
        let g = groups.get(r.key);
        if (!g) groups.set(r.key, (g = { totals: zeroCounts(), series: Array.from({ length: n }, zeroCounts) }));
        addCounts(g.totals, r);
        addCounts(g.series[b] as Counts, r);
      }
      if (dim === null) {
        const series = Array.from({ length: n }, zeroCounts);
        for (const r of rows) {
          const b = bucketOf(edges, r.time);
          if (b >= 0) addCounts(series[b] as Counts, r);
        }
        groups.set('', { totals, series });
      }
      const names = await namesOf(orgId, dim, [...groups.keys()]);
      return {
        timezone: org.zone, from: iso(from), to: iso(to), bucket, buckets: edges.slice(0, -1).map(iso), groupBy: dim, totals,
        groups: [...groups].sort(([, a], [, b]) => b.totals.alerts - a.totals.alerts || b.totals.occurrences - a.totals.occurrences)
          .map(([key, g]) => ({ key, name: names.get(key) ?? null, totals: g.totals, series: g.series })),
      };
    },

    async responseTimes(orgId: string, q: SeriesQuery): Promise<ResponseTimes> {
      const org = await settings(store.db, orgId);
      const bucket = q.bucket ?? 'day';
      const { edges, from, to } = frame(q, bucket, org.zone);
      const dim = groupDim(q.groupBy, org);
      const rows = await repo.incidents(store, store.db, orgId, from, to, q.clientId ?? null, dim);
      const n = edges.length - 1;
      // Groups in the order their first incident came; without a dimension, one group ('') even when empty.
      const keys = new Map<string, number>(dim === null ? [['', 0]] : []);
      const sizes: number[] = dim === null ? [0] : [];
      // Each incident counts in three spreads: everything (0), its group's, its group's bucket (-1 outside the buckets).
      const everything = new Int32Array(rows.length);
      const group = new Int32Array(rows.length);
      const inBucket = new Int32Array(rows.length);
      // Its durations, NaN for one it has not reached.
      const [ack, resolve, page] = [0, 0, 0].map(() => new Float64Array(rows.length)) as [Float64Array, Float64Array, Float64Array];
      for (const [i, [openedAt, ackMs, resolveMs, pageMs, key]] of rows.entries()) {
        let k = keys.get(key);
        if (k === undefined) {
          keys.set(key, (k = keys.size));
          sizes.push(0);
        }
        sizes[k] = (sizes[k] as number) + 1;
        const base = 1 + k * (n + 1);
        const b = bucketOf(edges, openedAt);
        group[i] = base;
        inBucket[i] = b < 0 ? -1 : base + 1 + b;
        ack[i] = ackMs ?? NaN;
        resolve[i] = resolveMs ?? NaN;
        page[i] = pageMs ?? NaN;
      }
      const cells = 1 + keys.size * (n + 1);
      const levels = [everything, group, inBucket];
      const [acks, resolves, pages] = [ack, resolve, page].map((values) => spreads(values, levels, cells)) as [Spread[], Spread[], Spread[]];
      const at = (cell: number): Durations => ({ ack: acks[cell] as Spread, resolve: resolves[cell] as Spread, page: pages[cell] as Spread });
      const names = await namesOf(orgId, dim, [...keys.keys()]);
      return {
        timezone: org.zone, from: iso(from), to: iso(to), bucket, buckets: edges.slice(0, -1).map(iso), groupBy: dim,
        overall: at(0),
        groups: [...keys].sort(([, a], [, b]) => (sizes[b] as number) - (sizes[a] as number)).map(([key, k]) => {
          const base = 1 + k * (n + 1);
          return { key, name: names.get(key) ?? null, overall: at(base), series: Array.from({ length: n }, (_, b) => at(base + 1 + b)) };
        }),
      };
    },

    async pagesPerPerson(orgId: string, q: DayRangeQuery): Promise<PagesPerPerson> {
      const org = await settings(store.db, orgId);
      const { from, to } = frame(q, 'day', org.zone);
      const rows = await repo.pages(store.db, orgId, from, to, q.clientId ?? null);
      const names = await repo.names(store.db, orgId, 'users', rows.map((r) => r.userId));
      return {
        timezone: org.zone, from: iso(from), to: iso(to),
        people: rows.map((r) => ({ userId: r.userId, name: names.get(r.userId) ?? null, working: r.working, offHours: r.offHours, total: r.working + r.offHours }))
          .sort((a, b) => b.total - a.total || b.offHours - a.offHours || a.userId.localeCompare(b.userId)),
      };
    },

    async noisy(orgId: string, q: NoisyQuery): Promise<Noisy> {
      const org = await settings(store.db, orgId);
      const { from, to } = frame(q, 'day', org.zone);
      const by = q.by ?? 'occurrences';
      const rows = await repo.noisy(store.db, orgId, splitMonths(from, to, org.zone), by, q.limit ?? 10, q.clientId ?? null);
      const names = await repo.names(store.db, orgId, 'integrations', rows.map((r) => r.integrationId).filter((id) => id !== ''));
      return {
        timezone: org.zone, from: iso(from), to: iso(to), by,
        alerts: rows.map((r) => ({
          fingerprint: r.fingerprint, integrationId: r.integrationId || null, integrationName: names.get(r.integrationId) ?? null,
          clientId: r.clientId || null, title: r.title,
          counts: Object.fromEntries(MEASURES.map((m) => [m, r[m]])) as Counts,
        })),
      };
    },

  };
}
export type AnalyticsService = ReturnType<typeof analyticsService>;

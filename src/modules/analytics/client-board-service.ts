import type { Store } from '../../db/database.ts';
import { iso, type Clock } from '../../lib/clock.ts';
import type { Severity } from '../alerts/alerts-fns.ts';
import type { SuppressionRepo } from '../suppression/suppression-repo.ts';
import { activeOccurrence } from '../suppression/recurrence-fns.ts';
import { attention, lastDays } from './analytics-fns.ts';
import type { AnalyticsRepo } from './analytics-repo.ts';
import type { AnalyticsService } from './analytics-service.ts';
import type { ClientBoard, ClientTile } from './analytics-schemas.ts';

/** The board shows this many clients at most (the most urgent first). */
const MAX_CLIENTS = 500;
const TREND_DAYS = 7;

/**
 * The client board: one tile per client with what needs attention now (docs/dashboard.md). Open alerts and
 * incidents are counted from their open-only indexes; the trend comes from the daily rollups.
 */
export function clientBoardService(deps: { store: Store; repo: AnalyticsRepo; analytics: AnalyticsService; suppression: SuppressionRepo; clock: Clock }) {
  const { store, repo, analytics, suppression, clock } = deps;

  return {
    async board(orgId: string): Promise<ClientBoard> {
      const at = clock.now();
      const org = await analytics.settings(store.db, orgId);
      const days = lastDays(at, TREND_DAYS, org.zone);
      const [base, windows, trendRows] = await Promise.all([
        repo.board(store.db, orgId, MAX_CLIENTS),
        suppression.notEnded(store.db, orgId, at),
        repo.counts(store.db, 'analytics_daily', orgId, 'client', null, days[0] as number, days[days.length - 1] as number),
      ]);
      // A window covers a client when it is scoped to it, or to everything (no client, no matcher).
      const inForce = windows.flatMap((w) => {
        const o = activeOccurrence(w, at);
        return o ? [{ w, endsAt: o.endsAt }] : [];
      });
      const windowNames = await repo.names(store.db, orgId, 'suppression_windows', inForce.map((x) => x.w.id));
      const tiles: ClientTile[] = [];
      for (const c of base.clients) {
        const open = (s: Severity) => base.open.find((r) => r.clientId === c.id && r.severity === s)?.n ?? 0;
        const trend = Array.from({ length: TREND_DAYS }, () => 0);
        for (const r of trendRows) {
          if (r.key !== c.id) continue;
          const i = days.findIndex((d, j) => j < TREND_DAYS && r.time >= d && r.time < (days[j + 1] as number));
          if (i >= 0) trend[i] = (trend[i] as number) + (r.alerts ?? 0);
        }
        const covering = inForce.find((x) => x.w.clientId === c.id || (x.w.clientId === null && x.w.matchers.length === 0));
        const last = await repo.lastAlert(store.db, orgId, c.id);
        const tile = {
          clientId: c.id, name: c.name, slug: c.slug,
          openCritical: open('critical'), openHigh: open('high'), openIncidents: base.incidents.get(c.id) ?? 0,
          lastAlert: last ? { id: last.id, title: last.title, severity: last.severity as Severity, createdAt: iso(Number(last.created_at)) } : null,
          maintenance: covering ? { windowId: covering.w.id, name: windowNames.get(covering.w.id) ?? '', endsAt: iso(covering.endsAt) } : null,
          trend,
        };
        tiles.push({ ...tile, attention: attention(tile) });
      }
      tiles.sort((a, b) => b.attention - a.attention || (b.lastAlert?.createdAt ?? '').localeCompare(a.lastAlert?.createdAt ?? '') || a.name.localeCompare(b.name));
      return { timezone: org.zone, at: iso(at), clients: tiles };
    },
  };
}
export type ClientBoardService = ReturnType<typeof clientBoardService>;

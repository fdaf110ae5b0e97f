import { principalOf } from '../../http/auth.ts';
import { apiSchema } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { ClientBoard, dataOf, DayRangeQuery, Noisy, NoisyQuery, PagesPerPerson, ResponseTimes, SeriesQuery, Volume } from './analytics-schemas.ts';
import type { AnalyticsService } from './analytics-service.ts';
import type { ClientBoardService } from './client-board-service.ts';

const RANGE_DOC = 'Days, weeks and months are those of the organization\'s time zone (`timezone`, see `GET /organization`); figures come from '
  + 'rollups kept as alerts, incidents and pages happen (docs/analytics.md).';

export function analyticsRoutes(app: Api, analytics: AnalyticsService, board: ClientBoardService): void {
  const read = { scope: 'alerts:read', tag: 'analytics' } as const;
  const orgOf = (req: Parameters<typeof principalOf>[0]) => principalOf(req).orgId;

  app.get('/analytics/volume', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read, summary: 'Alert volume over time',
      description: `Alerts opened, payloads, quick resolutions, incidents opened, pages and flaps per bucket, in total and per group (\`groupBy\`). ${RANGE_DOC}`,
    }, { querystring: SeriesQuery, response: { 200: dataOf(Volume) } }),
  }, async (req) => ({ data: await analytics.volume(orgOf(req), req.query) }));

  app.get('/analytics/response-times', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read, summary: 'MTTA, MTTR and time to first page',
      description: `Median and 90th percentile (nearest-rank) from an incident's opening to its first acknowledgement, its resolution and its first page delivered, of the incidents opened in each bucket. ${RANGE_DOC}`,
    }, { querystring: SeriesQuery, response: { 200: dataOf(ResponseTimes) } }),
  }, async (req) => ({ data: await analytics.responseTimes(orgOf(req), req.query) }));

  app.get('/analytics/pages-per-person', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read, summary: 'Pages per person, working hours and nights',
      description: `Pages delivered to each member over the range (whole days), split into working hours (Monday–Friday 09:00–18:00 on the member's own clock) and nights and weekends. ${RANGE_DOC}`,
    }, { querystring: DayRangeQuery, response: { 200: dataOf(PagesPerPerson) } }),
  }, async (req) => ({ data: await analytics.pagesPerPerson(orgOf(req), req.query) }));

  app.get('/analytics/noisy-alerts', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read, summary: 'Top noisy alerts',
      description: `Alerts (integration and fingerprint) ranked by \`by\` over the range (whole days): occurrences, pages caused, flaps, or resolutions within a minute. ${RANGE_DOC}`,
    }, { querystring: NoisyQuery, response: { 200: dataOf(Noisy) } }),
  }, async (req) => ({ data: await analytics.noisy(orgOf(req), req.query) }));

  app.get('/analytics/client-board', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read, summary: 'The client board',
      description: 'One tile per client, most in need of attention first: open critical and high alerts, open incidents, the newest alert, the maintenance window covering it, and alerts per day over the last 7 days.',
    }, { response: { 200: dataOf(ClientBoard) } }),
  }, async (req) => ({ data: await board.board(orgOf(req)) }));
}

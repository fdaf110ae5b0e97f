import { Type } from 'typebox';
import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema, conflictResponse, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { BY_FILTER_CAP } from './alerts-fns.ts';
import { AlertDetail, AlertList, AlertListQuery, BulkBody, BulkResult, ByFilterBody, ByFilterResult } from './alerts-schemas.ts';
import type { AlertsService } from './alerts-service.ts';

const One = Type.Object({ data: AlertDetail }, { additionalProperties: false });

export function alertsRoutes(app: Api, alerts: AlertsService): void {
  const read = { scope: 'alerts:read', tag: 'alerts' } as const;
  const write = { scope: 'alerts:write', tag: 'alerts' } as const;

  app.get('/alerts', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'List alerts', description: 'Newest first. Filters combine with AND.' }, { querystring: AlertListQuery, response: { 200: AlertList } }),
  }, (req) => alerts.list(principalOf(req).orgId, req.query));

  app.get('/alerts/:id', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'Get an alert', description: 'Includes the last raw payload received.' }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await alerts.get(principalOf(req).orgId, req.params.id) }));

  app.post('/alerts/:id/acknowledge', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Acknowledge an alert', description: 'Repeating is a no-op 200; a resolved alert cannot be acknowledged (409).' },
      { params: IdParams, response: { 200: One, ...conflictResponse } }),
  }, async (req) => ({ data: await alerts.act(principalOf(req).orgId, actorOf(req), req.params.id, 'acknowledge') }));

  app.post('/alerts/:id/resolve', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Resolve an alert', description: 'Repeating is a no-op 200.' }, { params: IdParams, response: { 200: One } }),
  }, async (req) => ({ data: await alerts.act(principalOf(req).orgId, actorOf(req), req.params.id, 'resolve') }));

  app.post('/alerts/bulk', {
    config: { scope: write.scope },
    schema: apiSchema({ ...write, summary: 'Acknowledge or resolve up to 100 alerts', description: 'One result per id, in order: `ok` with the new status, or the code (NOT_FOUND, CONFLICT) that stopped it.' },
      { body: BulkBody, response: { 200: BulkResult } }),
  }, async (req) => ({ data: { results: await alerts.bulk(principalOf(req).orgId, actorOf(req), req.body.action, req.body.ids) } }));

  app.post('/alerts/bulk-by-filter', {
    config: { scope: write.scope },
    schema: apiSchema({
      ...write,
      summary: 'Acknowledge or resolve all alerts matching a filter',
      description: 'Two steps, so nobody answers more alerts than they saw. First `{"action", "filter", "dryRun": true}` counts '
        + 'the alerts the filter (the same filters as `GET /alerts`) selects that the action can change — acknowledge: `firing` or `suppressed`; '
        + 'resolve: also `acknowledged` — and answers `matching` and `asOf`; nothing changes. Then the same body with `"confirm": {"count", "asOf"}` '
        + `acts on those created up to \`asOf\`, newest first, at most ${BY_FILTER_CAP} (\`remaining\` says how many are left for another request), `
        + 'each as `POST /alerts/{id}/acknowledge|resolve` would (their incidents follow: docs/paging.md). If more match than `confirm.count`, '
        + 'nothing changes: 409. Audit event `alert.acknowledged_matching` or `alert.resolved_matching` with the filter and the counts.',
    }, { body: ByFilterBody, response: { 200: ByFilterResult, ...conflictResponse } }),
  }, async (req) => ({ data: await alerts.byFilter(principalOf(req).orgId, actorOf(req), req.body) }));
}

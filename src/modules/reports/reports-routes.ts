import { Type } from 'typebox';
import { principalOf } from '../../http/auth.ts';
import { apiSchema, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { ClientReport, ReportQuery } from './reports-schemas.ts';
import type { ReportsService } from './reports-service.ts';

export function reportsRoutes(app: Api, reports: ReportsService): void {
  const read = { scope: 'clients:read', tag: 'clients' } as const;

  app.get('/clients/:id/report', {
    config: { scope: read.scope },
    schema: apiSchema({
      ...read,
      summary: 'A client\'s report of a month',
      description: 'Alert volume and its trend against the month before, incidents with their durations, MTTA and MTTR, the noisiest alerts, '
        + 'maintenance windows, and availability per service (time without an open critical alert), for a month of the organization\'s time zone. '
        + 'The same report is emailed on the 1st of each month to the client\'s `reportRecipients`.',
    }, { params: IdParams, querystring: ReportQuery, response: { 200: Type.Object({ data: ClientReport }, { additionalProperties: false }) } }),
  }, async (req) => ({ data: await reports.build(principalOf(req).orgId, req.params.id, req.query.period) }));
}

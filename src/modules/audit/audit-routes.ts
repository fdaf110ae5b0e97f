import { principalOf } from '../../http/auth.ts';
import { apiSchema } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { AuditList, AuditQuery } from './audit-schemas.ts';
import type { AuditService } from './audit-service.ts';

export function auditRoutes(app: Api, audit: AuditService): void {
  app.get('/audit-log', {
    config: { scope: 'audit:read' },
    schema: apiSchema(
      { scope: 'audit:read', tag: 'audit', summary: 'List audit events', description: 'Newest first. Filters (action, actor, time range `from`–`to`) combine with AND. `api_key.used` events are written in batches, about a second after the request.' },
      { querystring: AuditQuery, response: { 200: AuditList } },
    ),
  }, (req) => audit.list(principalOf(req).orgId, req.query));
}

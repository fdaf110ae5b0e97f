import { actorOf, principalOf } from '../../http/auth.ts';
import { apiSchema } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { OrgSettingsResponse, UpdateOrgBody } from './orgs-schemas.ts';
import type { OrgsService } from './orgs-service.ts';

export function orgsRoutes(app: Api, orgs: OrgsService): void {
  const read = { scope: 'users:read', tag: 'organization' } as const;
  const write = { scope: 'users:write', tag: 'organization' } as const;

  app.get('/organization', {
    config: { scope: read.scope },
    schema: apiSchema({ ...read, summary: 'The organization\'s settings', description: 'Its name, its time zone and the label keys analytics rolls up.' },
      { response: { 200: OrgSettingsResponse } }),
  }, async (req) => ({ data: await orgs.settings(principalOf(req).orgId) }));

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/organization',
      config: { scope: write.scope },
      schema: apiSchema({
        ...write,
        summary: method === 'PUT' ? 'Change the organization\'s settings' : 'Change the organization\'s settings (synonym of PUT)',
        description: 'Partial: fields left out stay as they are. Audited as `organization.updated`.',
      }, { body: UpdateOrgBody, response: { 200: OrgSettingsResponse } }),
      handler: async (req) => ({ data: await orgs.updateSettings(principalOf(req).orgId, actorOf(req), req.body) }),
    });
  }
}

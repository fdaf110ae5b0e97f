import { Type } from 'typebox';
import { actorOf, principalOf, spend, type Limits } from '../../http/auth.ts';
import { apiSchema, conflictResponse, IdParams } from '../../http/schemas.ts';
import type { Api } from '../../http/types.ts';
import { ApiKeyList, ApiKeyListQuery, CreateApiKeyBody, CreatedApiKey } from './api-keys-schemas.ts';
import type { ApiKeysService } from './api-keys-service.ts';

export function apiKeysRoutes(app: Api, deps: { apiKeys: ApiKeysService; limits: Limits }): void {
  const { apiKeys, limits } = deps;

  app.get('/api-keys', {
    config: { scope: 'api_keys:read' },
    schema: apiSchema({ scope: 'api_keys:read', tag: 'api-keys', summary: 'List API keys', description: 'Unrevoked keys of the organization; never the key values.' },
      { querystring: ApiKeyListQuery, response: { 200: ApiKeyList } }),
  }, (req) => apiKeys.list(principalOf(req).orgId, { limit: req.query.limit ?? 25, cursor: req.query.cursor }));

  app.post('/api-keys', {
    config: { scope: 'api_keys:write' },
    schema: apiSchema({
      scope: 'api_keys:write', tag: 'api-keys', summary: 'Create an API key',
      description: 'The full key is in this response only. A caller cannot grant scopes it does not hold (403), and a key cannot mint a key that outlives it: without `expiresAt` the new key expires with the calling key, and a later `expiresAt` (or `null`, never) is 403. At most RATE_LIMIT_API_KEYS_PER_DAY (10) creations per UTC day per organization.',
    }, { body: CreateApiKeyBody, response: { 201: Type.Object({ data: CreatedApiKey }, { additionalProperties: false }) } }),
    // The daily creation budget is a rate limit, so it is checked before scope and validation; only a
    // request that really creates a key keeps its point.
    onRequest: (req, reply) => spend(limits.apiKeysPerDay, principalOf(req).orgId, reply),
    onResponse: async (req, reply) => {
      if (reply.statusCode !== 201 && req.principal) await limits.apiKeysPerDay.refund(req.principal.orgId);
    },
  }, async (req, reply) => {
    const p = principalOf(req);
    const data = await apiKeys.create(p.orgId, actorOf(req), req.body, p);
    return reply.code(201).send({ data });
  });

  app.delete('/api-keys/:id', {
    config: { scope: 'api_keys:write' },
    schema: apiSchema({
      scope: 'api_keys:write', tag: 'api-keys', summary: 'Revoke an API key',
      description: 'Takes effect at once: the next request with the key, on any instance, is 401. A key can revoke only keys whose scopes it holds itself (403 otherwise), and cannot revoke the organization\'s last usable key holding `api_keys:write` (409 CONFLICT): the owner revokes that one from the dashboard or with the `alertflow` CLI.',
    }, { params: IdParams, response: { 204: Type.Null({ description: 'Revoked' }), ...conflictResponse } }),
  }, async (req, reply) => {
    const p = principalOf(req);
    await apiKeys.revoke(p.orgId, actorOf(req), req.params.id, p.scopes);
    return reply.code(204).send(null);
  });
}

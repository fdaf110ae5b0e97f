import SwaggerParser from '@apidevtools/swagger-parser';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES } from '../../src/modules/api-keys/api-keys-fns.ts';
import { startHarness, type Harness } from '../support/harness.ts';

/** Sign-in, sign-out, session and first-run setup: public, without a scope. */
const AUTH_OPERATIONS = ['get /auth/session', 'post /auth/login', 'post /auth/logout', 'get /auth/setup', 'post /auth/setup', 'post /auth/set-password'];

type Operation = { 'x-required-scopes'?: string[]; description?: string; security?: unknown[]; responses: Record<string, unknown>; requestBody?: unknown };

describe('served OpenAPI document', () => {
  let h: Harness;
  let doc: { openapi: string; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown> } };
  before(async () => {
    h = await startHarness('sqlite');
    const r = await h.req('GET', '/api/v1/openapi.json', { key: null });
    assert.equal(r.status, 200, 'served without a key');
    doc = r.body;
  });
  after(() => h.close());

  it('is a valid OpenAPI 3.0.3 document', async () => {
    assert.equal(doc.openapi, '3.0.3');
    await SwaggerParser.validate(structuredClone(doc) as never);
  });

  it('describes every operation of this build with its scope, bearer auth and error responses', () => {
    const expected = [
      'get /alerts', 'post /alerts/bulk', 'post /alerts/bulk-by-filter', 'get /alerts/{id}', 'post /alerts/{id}/acknowledge', 'post /alerts/{id}/resolve',
      'get /alerts/{id}/notifications',
      'get /integrations', 'post /integrations', 'get /integrations/{id}', 'put /integrations/{id}', 'patch /integrations/{id}', 'delete /integrations/{id}',
      'get /integrations/presets', 'post /integrations/{id}/preview', 'post /integrations/{id}/rotate-token', 'get /integrations/{id}/rejections',
      'get /clients', 'post /clients', 'get /clients/{id}', 'put /clients/{id}', 'patch /clients/{id}', 'delete /clients/{id}',
      'get /suppression', 'post /suppression', 'get /suppression/{id}', 'put /suppression/{id}', 'patch /suppression/{id}', 'delete /suppression/{id}',
      'get /users', 'post /users', 'patch /users/{id}', 'delete /users/{id}', 'post /users/{id}/password-link',
      'get /users/me', 'patch /users/me', 'post /users/me/password',
      'get /api-keys', 'post /api-keys', 'delete /api-keys/{id}', 'get /audit-log',
      'get /workflows', 'post /workflows', 'get /workflows/{id}', 'put /workflows/{id}', 'patch /workflows/{id}', 'delete /workflows/{id}',
      'post /workflows/{id}/enable', 'post /workflows/{id}/disable', 'post /workflows/{id}/test', 'post /workflows/test', 'get /workflows/{id}/runs',
      'get /schedules', 'post /schedules', 'get /schedules/{id}', 'put /schedules/{id}', 'patch /schedules/{id}', 'delete /schedules/{id}',
      'get /schedules/current-oncall', 'get /schedules/{id}/shifts', 'get /schedules/{id}/calendar.ics',
      'post /schedules/preview', 'post /suppression/preview',
      'get /incidents', 'get /incidents/{id}', 'put /incidents/{id}', 'patch /incidents/{id}', 'post /incidents/{id}/notes',
      'post /incidents/{id}/escalate', 'post /incidents/{id}/responders', 'post /incidents/{id}/snooze',
      'get /heartbeats', 'post /heartbeats', 'get /heartbeats/{id}', 'put /heartbeats/{id}', 'patch /heartbeats/{id}', 'delete /heartbeats/{id}',
      'post /heartbeats/{id}/rotate-token',
      'get /users/me/contact-methods', 'post /users/me/contact-methods', 'get /users/me/contact-methods/{id}', 'put /users/me/contact-methods/{id}',
      'patch /users/me/contact-methods/{id}', 'delete /users/me/contact-methods/{id}', 'get /users/me/notification-rules', 'put /users/me/notification-rules',
      'post /users/me/contact-methods/{id}/test', 'post /users/me/contact-methods/{id}/send-code', 'post /users/me/contact-methods/{id}/verify', 'get /channels',
      'post /users/me/contact-methods/link', 'post /channels/{type}/test', 'get /channel-providers', 'get /channel-settings', 'put /channel-settings/{channel}', 'delete /channel-settings/{channel}',
      'get /users/{id}/contact-methods',
      'get /users/me/oncall', 'get /users/me/calendar-feed', 'post /users/me/calendar-feed', 'delete /users/me/calendar-feed',
      'get /schedules/{id}/calendar-feed', 'post /schedules/{id}/calendar-feed', 'delete /schedules/{id}/calendar-feed',
      'get /events',
      'get /escalation-policies', 'post /escalation-policies', 'get /escalation-policies/{id}', 'put /escalation-policies/{id}',
      'patch /escalation-policies/{id}', 'delete /escalation-policies/{id}',
      'get /analytics/volume', 'get /analytics/response-times', 'get /analytics/pages-per-person', 'get /analytics/noisy-alerts',
      'get /analytics/client-board', 'get /organization', 'put /organization', 'patch /organization', 'get /clients/{id}/report',
      ...AUTH_OPERATIONS,
    ];
    const actual = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    assert.deepEqual([...actual].sort(), [...expected].sort());
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(ops)) {
        if (AUTH_OPERATIONS.includes(`${m} ${p}`)) {
          assert.deepEqual(op.security, [], `${m} ${p} is public`);
          assert.deepEqual(op['x-required-scopes'], [], `${m} ${p} names its scopes: none`);
          assert.match(op.description ?? '', /needs no API key and no scope/);
          continue;
        }
        const scopes = op['x-required-scopes'];
        assert.ok(Array.isArray(scopes) && scopes.length === 1, `${m} ${p} lacks x-required-scopes`);
        assert.ok((SCOPES as readonly string[]).includes(scopes[0] as string), `${m} ${p}: unknown scope ${scopes[0]}`);
        assert.match(op.description ?? '', new RegExp(`Requires scope \`${scopes[0]}\``));
        assert.deepEqual(op.security, [{ bearerAuth: [] }, { cookieAuth: [] }]);
        for (const code of ['400', '401', '403', '404', '429', '500']) assert.ok(op.responses[code], `${m} ${p} lacks ${code}`);
        if (op.requestBody) for (const code of ['413', '415']) assert.ok(op.responses[code], `${m} ${p} lacks ${code}`);
      }
    }
    assert.ok(doc.components.securitySchemes.bearerAuth);
    assert.ok(doc.components.securitySchemes.cookieAuth);
  });

  it('has no entry for the ingest endpoint', () => {
    assert.ok(!Object.keys(doc.paths).some((p) => p.includes('inbound') || p.includes('webhook')));
  });

  it('documents the scopes the contract names for the interface table', () => {
    const scopeOf = (m: string, p: string) => doc.paths[p]?.[m]?.['x-required-scopes']?.[0];
    assert.equal(scopeOf('get', '/alerts'), 'alerts:read');
    assert.equal(scopeOf('post', '/alerts/bulk'), 'alerts:write');
    assert.equal(scopeOf('get', '/alerts/{id}/notifications'), 'alerts:read');
    assert.equal(scopeOf('delete', '/integrations/{id}'), 'integrations:write');
    assert.equal(scopeOf('get', '/clients'), 'clients:read');
    assert.equal(scopeOf('post', '/clients'), 'clients:write');
    assert.equal(scopeOf('put', '/clients/{id}'), 'clients:write');
    assert.equal(scopeOf('delete', '/clients/{id}'), 'clients:write');
    assert.equal(scopeOf('get', '/suppression'), 'suppression:read');
    assert.equal(scopeOf('get', '/suppression/{id}'), 'suppression:read');
    assert.equal(scopeOf('post', '/suppression'), 'suppression:write');
    assert.equal(scopeOf('put', '/suppression/{id}'), 'suppression:write');
    assert.equal(scopeOf('delete', '/suppression/{id}'), 'suppression:write');
    assert.equal(scopeOf('get', '/schedules'), 'schedules:read');
    assert.equal(scopeOf('get', '/schedules/{id}'), 'schedules:read');
    assert.equal(scopeOf('put', '/schedules/{id}'), 'schedules:write');
    assert.equal(scopeOf('delete', '/schedules/{id}'), 'schedules:write');
    assert.equal(scopeOf('get', '/schedules/current-oncall'), 'schedules:read');
    assert.equal(scopeOf('get', '/users'), 'users:read');
    assert.equal(scopeOf('post', '/api-keys'), 'api_keys:write');
    assert.equal(scopeOf('get', '/audit-log'), 'audit:read');
    assert.equal(scopeOf('get', '/workflows'), 'workflows:read');
    assert.equal(scopeOf('get', '/workflows/{id}'), 'workflows:read');
    assert.equal(scopeOf('post', '/workflows'), 'workflows:write');
    assert.equal(scopeOf('put', '/workflows/{id}'), 'workflows:write');
    assert.equal(scopeOf('delete', '/workflows/{id}'), 'workflows:write');
    assert.equal(scopeOf('post', '/workflows/{id}/enable'), 'workflows:write');
    assert.equal(scopeOf('post', '/workflows/{id}/disable'), 'workflows:write');
    assert.equal(scopeOf('post', '/workflows/{id}/test'), 'workflows:read');
    assert.equal(scopeOf('get', '/workflows/{id}/runs'), 'workflows:read');
    assert.equal(scopeOf('get', '/heartbeats'), 'heartbeats:read');
    assert.equal(scopeOf('get', '/heartbeats/{id}'), 'heartbeats:read');
    assert.equal(scopeOf('post', '/heartbeats'), 'heartbeats:write');
    assert.equal(scopeOf('patch', '/heartbeats/{id}'), 'heartbeats:write');
    assert.equal(scopeOf('delete', '/heartbeats/{id}'), 'heartbeats:write');
    assert.equal(scopeOf('post', '/heartbeats/{id}/rotate-token'), 'heartbeats:write');
    assert.equal(scopeOf('get', '/escalation-policies'), 'escalations:read');
    assert.equal(scopeOf('get', '/escalation-policies/{id}'), 'escalations:read');
    assert.equal(scopeOf('post', '/escalation-policies'), 'escalations:write');
    assert.equal(scopeOf('put', '/escalation-policies/{id}'), 'escalations:write');
    assert.equal(scopeOf('delete', '/escalation-policies/{id}'), 'escalations:write');
    assert.equal(scopeOf('get', '/incidents'), 'incidents:read');
    assert.equal(scopeOf('get', '/incidents/{id}'), 'incidents:read');
    assert.equal(scopeOf('put', '/incidents/{id}'), 'incidents:write');
    assert.equal(scopeOf('patch', '/incidents/{id}'), 'incidents:write');
    assert.equal(scopeOf('get', '/events'), 'alerts:read');
  });

  it('documents GET /events as a text/event-stream whose events match the documented data schema', async () => {
    const { Ajv } = await import('ajv');
    const { openSse } = await import('../support/sse.ts');
    const op = doc.paths['/events']?.get as Operation & { responses: Record<string, { content?: Record<string, { schema: object }> }> };
    const schema = op.responses['200']?.content?.['text/event-stream']?.schema;
    assert.ok(schema, 'the 200 response is text/event-stream with the data schema');
    for (const type of ['alert.created', 'alert.updated', 'alert.resolved', 'incident.created', 'incident.updated', 'reset', 'Last-Event-ID']) {
      assert.ok(op.description?.includes(type), `the description names ${type}`);
    }
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const address = h.app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const stream = await openSse(`http://127.0.0.1:${port}/api/v1/events`, { authorization: `Bearer ${h.org.key}` });
    assert.equal(stream.status, 200);
    assert.match(stream.contentType, /^text\/event-stream/);
    const integration = await h.integration();
    await h.ingestAlert(integration.path, { title: 'documented', severity: 'high' });
    const first = await stream.next(() => true);
    stream.close();
    assert.equal(first.event, 'alert.created');
    const validate = new Ajv({ strict: false }).compile(schema);
    assert.ok(validate(first.data), JSON.stringify(validate.errors));
  });
});

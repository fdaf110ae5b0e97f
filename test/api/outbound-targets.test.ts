import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson, asPerson, signIn, type Session } from '../support/sessions.ts';
import { eachStore } from '../support/stores.ts';

/**
 * Every URL a tenant can save as an outbound target goes through the one address policy sending applies
 * (src/infra/outbound.ts): refused at save time with a 400 naming the field, and nothing stored.
 */
const HOSTILE = [
  'http://127.0.0.1/', 'http://127.0.0.1:8080/hook', 'http://127.1/', 'http://2130706433/', 'http://0x7f000001/',
  'http://0177.0.0.1/', 'http://0/', 'http://0.0.0.0:9000/', 'http://10.0.0.1/', 'http://172.16.5.4/', 'http://192.168.0.1/',
  'http://169.254.169.254/latest/meta-data/', 'http://100.64.0.1/', 'http://[::1]/', 'http://[::]/', 'http://[::127.0.0.1]/',
  'http://[::7f00:1]/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:a9fe:a9fe]/', 'http://[64:ff9b::a9fe:a9fe]/',
  'http://[2002:7f00:1::1]/', 'http://[fe80::1]/', 'http://[fd00::1]/', 'http://localhost/', 'http://api.localhost:3000/',
  'http://127.0.0.1%2f@example.com/', 'http://user:pw@example.com/', 'http://example.com@127.0.0.1/', 'http://127.0.0.1\\@example.com/',
  'ftp://example.com/', 'file:///etc/passwd', 'gopher://127.0.0.1:6379/_INFO', 'javascript:alert(1)', 'not a url',
];
const PUBLIC = 'https://hooks.example.com/alertflow';
const PASSWORD = 'correct horse battery staple';
const SECRET = 'target-secret-0123456789';

eachStore('outbound targets are checked when saved, with the policy sending uses', { together: true }, (kind) => {
  let h: Harness;
  let mia: Session;
  before(async () => {
    h = await startHarness(kind);
    await addPerson(h, h.org.id, 'mia@acme.test', PASSWORD, 'member');
    mia = await signIn(h, 'mia@acme.test', PASSWORD);
  });
  after(() => h.close());

  const refusedAt = (r: { status: number; body: any; raw: string }, path: string, url: string) => {
    assert.equal(r.status, 400, `${url}: ${r.raw}`);
    assert.equal(r.body.code, 'VALIDATION_ERROR');
    assert.ok(r.body.details.some((d: { path: string }) => d.path === path), `${url}: ${r.raw}`);
  };

  it('contact methods: webhook, slack and ntfy addresses', async () => {
    for (const url of HOSTILE) {
      const forms: Array<[Record<string, unknown>, string]> = [
        [{ type: 'webhook', target: { url, secret: SECRET } }, '/target/url'],
        [{ type: 'slack', target: { webhookUrl: url } }, '/target/webhookUrl'],
        [{ type: 'ntfy', target: { serverUrl: url, topic: 'pages' } }, '/target/serverUrl'],
      ];
      for (const [body, path] of forms) refusedAt(await asPerson(h, mia, 'POST', '/api/v1/users/me/contact-methods', { body }), path, url);
    }
    assert.equal((await asPerson(h, mia, 'GET', '/api/v1/users/me/contact-methods')).body.data.length, 0, 'nothing stored');
    assert.equal((await asPerson(h, mia, 'POST', '/api/v1/users/me/contact-methods', { body: { type: 'webhook', target: { url: PUBLIC, secret: SECRET } } })).status, 201);
  });

  it('escalation policies: every channel target with an address', async () => {
    for (const url of HOSTILE) {
      const forms: Array<[string, Record<string, string>, string]> = [
        ['webhook', { url }, 'url'], ['slack', { webhookUrl: url }, 'webhookUrl'], ['teams', { webhookUrl: url }, 'webhookUrl'], ['ntfy', { serverUrl: url, topic: 'ops' }, 'serverUrl'],
      ];
      for (const [channel, target, field] of forms) {
        const body = { name: 'p', steps: [{ delayMinutes: 0, targets: [{ type: 'channel', channel, target }] }] };
        refusedAt(await h.req('POST', '/api/v1/escalation-policies', { body }), `/steps/0/targets/0/target/${field}`, url);
      }
    }
    assert.equal((await h.ok('GET', '/api/v1/escalation-policies')).meta.total, 0, 'nothing stored');
    await h.ok('POST', '/api/v1/escalation-policies', { body: { name: 'ok', steps: [{ delayMinutes: 0, targets: [{ type: 'channel', channel: 'webhook', target: { url: PUBLIC } }] }] } }, 201);
  });

  it('workflow webhook actions, saved or tested', async () => {
    const alert = { title: 'Disk full', severity: 'high' };
    for (const url of HOSTILE) {
      const actions = [{ type: 'webhook', url, secret: SECRET }];
      refusedAt(await h.req('POST', '/api/v1/workflows', { body: { name: 'w', trigger: 'alert.created', actions } }), '/actions/0/url', url);
      refusedAt(await h.req('POST', '/api/v1/workflows/test', { body: { actions, alert } }), '/actions/0/url', url);
    }
    assert.equal((await h.ok('GET', '/api/v1/workflows')).meta.total, 0, 'nothing stored');
    await h.ok('POST', '/api/v1/workflows', { body: { name: 'ok', trigger: 'alert.created', actions: [{ type: 'webhook', url: PUBLIC, secret: SECRET }] } }, 201);
  });
});

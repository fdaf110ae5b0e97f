import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { addMember, createOrg, sleep, startServer, stopAll, type CreatedOrg, type ServerProcess } from '../support/process.ts';
import { startSmtpSink, type SmtpSink } from '../support/sinks.ts';
import { createTestStore, eachStore, type TestStore } from '../support/stores.ts';

/**
 * Handoff notices on real processes: two instances on one store, each looking every second. A shift that
 * starts a few seconds from now brings its person one email (a real SMTP server), not two; a schedule
 * without the setting brings none.
 */
// One kind at a time: four servers starting at once gained nothing here (45.6 s one after the other, 51.1 s side by side).
eachStore('handoff notices on two instances', { together: false }, (kind) => {
  let store: TestStore;
  let smtp: SmtpSink;
  let servers: ServerProcess[] = [];
  let org: CreatedOrg;

  before(async () => {
    store = await createTestStore(kind);
    smtp = await startSmtpSink();
    const env = { DATABASE_URL: store.url, SMTP_URL: smtp.url, SMTP_FROM: 'AlertFlow <alerts@alertflow.test>', HANDOFF_CHECK_SECONDS: '1' };
    servers = [await startServer(env, { timeoutMs: 90_000 })];
    // The second starts once the first has migrated the store.
    servers.push(await startServer(env, { timeoutMs: 90_000 }));
    org = await createOrg(store.url);
  });
  after(async () => {
    await stopAll(servers);
    await smtp.close();
    await store.drop();
  });

  it('one email to the incoming person when the shift starts; none for a schedule without the setting', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const mia = await addMember(store.url, org.org.id, 'mia@acme.test', 'Mia');
    const leo = await addMember(store.url, org.org.id, 'leo@acme.test', 'Leo');
    const startsAt = new Date(Date.now() + 4_000).toISOString();
    const create = async (server: ServerProcess, body: unknown) => {
      const r = await server.request('POST', '/api/v1/schedules', { key: org.apiKey, body });
      assert.equal(r.status, 201, r.raw);
    };
    await create(a, { name: 'Primary', handoffNotices: true, layers: [{ name: 'Day', startsAt, rotation: 'daily', users: [mia.id] }] });
    await create(b, { name: 'Quiet', layers: [{ name: 'Day', startsAt, rotation: 'daily', users: [leo.id] }] });
    const to = (email: string) => smtp.mails.filter((m) => m.to.includes(email));

    assert.equal(to(mia.email).length, 0, 'not before the shift starts');
    const mail = await eventually('the handoff notice', () => to(mia.email)[0], 30_000);
    assert.equal(mail.headers.subject, 'You are on call for Primary');
    assert.match(mail.text, /You are on call for Primary from .* until further notice \(UTC\)\./);
    // Several looks of each instance later: still one.
    await sleep(3_000);
    assert.equal(to(mia.email).length, 1, 'one notice from two instances');
    assert.equal(to(leo.email).length, 0, 'none without the setting');
  });
});

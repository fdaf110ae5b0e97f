import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { addPerson, asPerson, signIn, type Session } from '../support/sessions.ts';
import { eachStore } from '../support/stores.ts';
import { startTwilioSim, twilioEnv, type TwilioSim } from '../support/twilio-sim.ts';

/**
 * SMS and voice through Twilio (its simulator): numbers page only once confirmed by a code; a text page
 * carries a reply code, and replying it acknowledges (with R: resolves) once; a call reads the page and 4
 * acknowledges; status callbacks show failures in the delivery log; and forged, replayed, expired and
 * other organizations' answers are refused and change nothing.
 */

const PASSWORD = 'correct horse battery staple';
const MIA = '+4915100000001';
const BOB = '+4915100000002';
const LEO = '+4915100000003';

eachStore('Twilio SMS and voice', { together: true }, (kind) => {
  let h: Harness;
  let sim: TwilioSim;
  let org: Org;
  let integ: { path: string };
  let mia: Session;
  let bob: Session;
  before(async () => {
    sim = await startTwilioSim({ publicUrl: 'http://alertflow.test' });
    h = await startHarness(kind, { ...twilioEnv(sim), JOB_POLL_MS: '50', ESCALATION_MINUTE_MS: '60000' });
    sim.appUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
    org = h.org;
    integ = await h.integration();
    await addPerson(h, org.id, 'mia@acme.test', PASSWORD, 'member');
    await addPerson(h, org.id, 'bob@acme.test', PASSWORD, 'member');
    [mia, bob] = await Promise.all([signIn(h, 'mia@acme.test', PASSWORD), signIn(h, 'bob@acme.test', PASSWORD)]);
  });
  after(async () => {
    await h.close();
    await sim.close();
  });

  const call = (s: Session, method: string, path: string, body?: unknown) => asPerson(h, s, method, `/api/v1/users/me/contact-methods${path}`, body === undefined ? {} : { body });
  const codeIn = (text: string) => /(\d) (\d) (\d) (\d) (\d) (\d)/.exec(text)?.slice(1).join('') ?? '';

  /** A member's confirmed method: added, a code sent to the number, the code entered. */
  async function confirmed(s: Session, type: 'sms' | 'voice', number: string): Promise<string> {
    const added = await call(s, 'POST', '', { type, target: { number } });
    assert.equal(added.status, 201, added.raw);
    const id = added.body.data.id as string;
    const sent = await call(s, 'POST', `/${id}/send-code`);
    assert.equal(sent.body.data.status, 'sent', sent.raw);
    const code = type === 'sms'
      ? codeIn(sim.messages.filter((m) => m.to === number).at(-1)!.body)
      : codeIn((await sim.nextCall(number)).twiml);
    const ok = await call(s, 'POST', `/${id}/verify`, { code });
    assert.equal(ok.status, 200, ok.raw);
    assert.equal(ok.body.data.verified, true);
    return id;
  }

  /** An alert whose incident escalates to `users` at once; its incident. */
  async function page(title: string, users: string[]): Promise<{ alertId: string; incidentId: string }> {
    const policy = await h.ok('POST', '/api/v1/escalation-policies', { body: { name: title, steps: [{ delayMinutes: 1, targets: users.map((id) => ({ type: 'user', id })) }] } }, 201);
    await h.ok('POST', '/api/v1/workflows', { body: { name: title, trigger: 'alert.created', conditions: { field: 'title', op: 'eq', value: title }, actions: [{ type: 'create_incident', groupBy: ['title'], escalationPolicyId: policy.data.id }] } }, 201);
    const alertId = await h.ingestAlert(integ.path, { title, severity: 'critical' });
    const incidentId = await eventually('the incident', async () => (await h.ok('GET', `/api/v1/alerts/${alertId}`)).data.incidentId ?? undefined);
    return { alertId, incidentId };
  }
  const incident = async (id: string) => (await h.ok('GET', `/api/v1/incidents/${id}`)).data;

  it('a number pages only once confirmed: wrong, expired and too many codes are refused', async () => {
    const added = await call(mia, 'POST', '', { type: 'sms', target: { number: '+49 151' } });
    assert.equal(added.status, 400, 'not E.164');
    const method = await call(mia, 'POST', '', { type: 'sms', target: { number: LEO } });
    assert.equal(method.body.data.verified, false);
    const id = method.body.data.id as string;
    assert.equal((await call(mia, 'POST', `/${id}/test`)).status, 409, 'no test page to a number nobody confirmed');
    assert.deepEqual(await h.c.contacts.planFor(org.id, mia.userId), [{ afterMinutes: 0, channel: 'email', target: { to: 'mia@acme.test' } }], 'unconfirmed: never paged');
    assert.equal((await call(mia, 'POST', `/${id}/verify`, { code: '000000' })).body.details[0].message, 'was never sent: send one first');

    await call(mia, 'POST', `/${id}/send-code`);
    const sms = sim.messages.at(-1)!;
    assert.equal(sms.to, LEO);
    assert.match(sms.body, /^Your AlertFlow code\. Your AlertFlow code is \d \d \d \d \d \d\. It expires in 10 minutes\./);
    const wrong = await call(mia, 'POST', `/${id}/verify`, { code: '999999' === codeIn(sms.body) ? '999998' : '999999' });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.details[0].path, '/code');
    h.clock.advance(11 * 60_000);
    assert.match((await call(mia, 'POST', `/${id}/verify`, { code: codeIn(sms.body) })).body.details[0].message, /expired/);
    for (let i = 0; i < 4; i++) assert.equal((await call(mia, 'POST', `/${id}/send-code`)).status, 200);
    const sixth = await call(mia, 'POST', `/${id}/send-code`);
    assert.equal(sixth.status, 429, 'five codes an hour');
    assert.ok(Number(sixth.headers['retry-after']) > 0);
    assert.equal((await call(mia, 'POST', `/${id}/verify`, { code: codeIn(sim.messages.at(-1)!.body) })).body.data.verified, true);
    assert.equal((await call(mia, 'DELETE', `/${id}`)).status, 204);
    assert.deepEqual(sim.refusals, []);
  });

  it('a text page carries a reply code: the code acknowledges once, codeR resolves; help for anything else; forged, replayed and foreign replies change nothing', async () => {
    await confirmed(mia, 'sms', MIA);
    const { incidentId } = await page('Disk full on db1', [mia.userId]);
    const sms = await eventually('the page', () => sim.messages.find((m) => m.to === MIA && m.body.includes('Disk full on db1')));
    const inc = await incident(incidentId);
    const code = /Reply (\d+) to acknowledge/.exec(sms.body)?.[1] as string;
    assert.equal(code, String(inc.number), 'the incident number, when free');
    assert.match(sms.body, /^AlertFlow \[CRITICAL\] #\d+ Disk full on db1 Reply \d+ to acknowledge, \d+R to resolve\.$/);

    assert.match((await sim.text(MIA, 'what?')).reply, /^Reply with the code of a page/);
    assert.match((await sim.text(LEO, code)).reply, /^No page for this number has the code/, 'another number cannot use Mia\'s code');
    // Forged: signed with another token, or not signed at all.
    const forged = { AccountSid: sim.accountSid, MessageSid: 'SM0', From: MIA, To: sim.fromNumbers[0] as string, Body: code };
    assert.equal((await sim.post('/api/inbound/channels/sms/reply', forged, 'bm90IGEgc2lnbmF0dXJl')).status, 403);
    assert.equal((await sim.post('/api/inbound/channels/sms/reply', { ...forged, AccountSid: 'AC00000000000000000000000000000000' })).status, 403, 'another account');
    assert.equal((await incident(incidentId)).status, 'triggered', 'nothing changed');

    const ack = await sim.text(MIA, ` ${code} `, { sid: 'SM_ack_once' });
    assert.match(ack.reply, new RegExp(`^Acknowledged #${inc.number} Disk full on db1\\. The escalation has stopped\\.$`));
    const after = await incident(incidentId);
    assert.equal(after.status, 'acknowledged');
    const changed = after.timeline.filter((t: { type: string }) => t.type === 'status_changed');
    assert.deepEqual(changed.map((t: { actor: { id: string }; data: { via: string } }) => [t.actor.id, t.data.via]), [[mia.userId, `SMS reply from ${MIA}`]]);
    // The same message again (Twilio retrying it): acted on once.
    const replay = await sim.text(MIA, code, { sid: 'SM_ack_once' });
    assert.equal(replay.reply, '', 'a replay gets no second answer');
    assert.equal((await incident(incidentId)).timeline.filter((t: { type: string }) => t.type === 'status_changed').length, 1);

    assert.match((await sim.text(MIA, `${code}r`)).reply, /^Resolved #\d+ Disk full on db1/);
    assert.equal((await incident(incidentId)).status, 'resolved');
    assert.match((await sim.text(MIA, code)).reply, /is already resolved; nothing changed/);

    // The delivery log shows the answers with the page.
    const alerts = (await incident(incidentId)).alerts as Array<{ id: string }>;
    const log = (await h.ok('GET', `/api/v1/alerts/${alerts[0]!.id}/notifications`)).data as Array<{ channel: string; answers: Array<{ action: string; outcome: string; via: string }>; providerStatus: string | null }>;
    const smsPage = log.find((n) => n.channel === 'sms')!;
    assert.deepEqual(smsPage.answers.map((a) => [a.action, a.outcome, a.via]), [
      ['acknowledge', 'done', `SMS reply from ${MIA}`], ['resolve', 'done', `SMS reply from ${MIA}`], ['acknowledge', 'already', `SMS reply from ${MIA}`],
    ]);
    assert.equal(smsPage.providerStatus, 'delivered', 'Twilio\'s status callback');

    // A day later the code is gone.
    h.clock.advance(25 * 3_600_000);
    assert.match((await sim.text(MIA, code)).reply, /^No page for this number has the code/);
  });

  it('another organization\'s page is answered only from its own code: codes are per number and never cross', async () => {
    const other = await h.newOrg('Other');
    await addPerson(h, other.id, 'ola@other.test', PASSWORD, 'member');
    const ola = await signIn(h, 'ola@other.test', PASSWORD);
    const olaMethod = await asPerson(h, ola, 'POST', '/api/v1/users/me/contact-methods', { body: { type: 'sms', target: { number: MIA } } });
    await asPerson(h, ola, 'POST', `/api/v1/users/me/contact-methods/${olaMethod.body.data.id}/send-code`);
    const code = codeIn(sim.messages.at(-1)!.body);
    await asPerson(h, ola, 'POST', `/api/v1/users/me/contact-methods/${olaMethod.body.data.id}/verify`, { body: { code } });
    const mine = await page('Queue backlog', [mia.userId]);
    const minePage = await eventually('Mia\'s page', () => sim.messages.find((m) => m.to === MIA && m.body.includes('Queue backlog')));
    const mineCode = /Reply (\d+) /.exec(minePage.body)?.[1] as string;
    const otherIntegration = await h.integration(other);
    const otherPolicy = await h.ok('POST', '/api/v1/escalation-policies', { key: other.key, body: { name: 'p', steps: [{ delayMinutes: 1, targets: [{ type: 'user', id: ola.userId }] }] } }, 201);
    await h.ok('POST', '/api/v1/workflows', { key: other.key, body: { name: 'w', trigger: 'alert.created', actions: [{ type: 'create_incident', escalationPolicyId: otherPolicy.data.id }] } }, 201);
    await h.ingestAlert(otherIntegration.path, { title: 'Queue backlog', severity: 'high' });
    const theirPage = await eventually('the other org\'s page', () => sim.messages.find((m) => m.to === MIA && m.body.includes('Queue backlog') && m !== minePage));
    const theirCode = /Reply (\d+) /.exec(theirPage.body)?.[1] as string;
    assert.notEqual(theirCode, mineCode, 'one number, two live pages: two codes');
    await sim.text(MIA, theirCode);
    assert.equal((await incident(mine.incidentId)).status, 'triggered', 'the other organization\'s answer does not touch ours');
  });

  it('a call reads the page; a wrong key repeats, 4 acknowledges; an unanswered call and an undelivered text show in the log', async () => {
    // A day has passed in this file's clock: a new session.
    bob = await signIn(h, 'bob@acme.test', PASSWORD);
    await confirmed(bob, 'voice', BOB);
    const { incidentId, alertId } = await page('Replica lag on db2', [bob.userId]);
    const c = await sim.nextCall(BOB);
    await sim.answer(c);
    assert.match(c.said[0] as string, /^AlertFlow page\. critical\. #\d+ Replica lag on db2\. Press 4 to acknowledge, 6 to resolve\.$/);
    await sim.press(c, '9');
    assert.equal(c.said.at(-2), 'That key does nothing.');
    await sim.press(c, '4');
    assert.match(c.said.at(-1) as string, /^Incident \d+ acknowledged\. The escalation has stopped\. Goodbye\.$/);
    assert.equal((await incident(incidentId)).status, 'acknowledged');
    // The Gather posted again (a replay): acted on once.
    const action = /action="([^"]+)"/.exec(c.twiml)![1]!.replace(/&amp;/g, '&');
    const again = await sim.post(action, { AccountSid: sim.accountSid, CallSid: c.sid, From: c.from, To: c.to, Digits: '4', CallStatus: 'in-progress' });
    assert.match(again.body, /Already done/);
    // Someone else's call id with this page's URL: refused, once the call's own id is recorded with the send (the
    // simulator can ring before our send has its answer; until then the signature alone vouches for the request).
    await eventually('the call recorded as sent', async () => {
      const l = (await h.ok('GET', `/api/v1/alerts/${alertId}/notifications`)).data as Array<{ channel: string; status: string }>;
      return l.find((n) => n.channel === 'voice' && n.status === 'sent');
    });
    assert.equal((await sim.post(action, { AccountSid: sim.accountSid, CallSid: 'CA0', From: c.from, To: c.to, Digits: '6' })).status, 404);
    // A key posted unsigned by Twilio's token (forged): refused before anything is read.
    assert.equal((await sim.post(action, { AccountSid: sim.accountSid, CallSid: c.sid, From: c.from, To: c.to, Digits: '6' }, sim.sign('http://elsewhere.test/', {}))).status, 403);
    assert.equal((await incident(incidentId)).status, 'acknowledged');

    // Nobody picks up the next page: the log says so.
    const second = await page('Replica lag on db3', [bob.userId]);
    const unanswered = await sim.nextCall(BOB);
    await sim.noAnswer(unanswered);
    const log = await eventually('the unanswered call logged', async () => {
      const l = (await h.ok('GET', `/api/v1/alerts/${second.alertId}/notifications`)).data as Array<{ channel: string; status: string; lastError: string | null }>;
      return l.find((n) => n.channel === 'voice' && n.status === 'failed');
    });
    assert.equal(log.lastError, 'The call was not answered (no-answer)');
    assert.equal((await incident(second.incidentId)).status, 'triggered', 'not answered: the escalation goes on');

    sim.unreachable.add(MIA);
    const lost = await page('Cache cold', [mia.userId]);
    const failed = await eventually('the undelivered text logged', async () => {
      const l = (await h.ok('GET', `/api/v1/alerts/${lost.alertId}/notifications`)).data as Array<{ channel: string; status: string; lastError: string | null; providerStatus: string | null }>;
      return l.find((n) => n.channel === 'sms' && n.status === 'failed');
    });
    assert.deepEqual([failed.lastError, failed.providerStatus], ['Twilio: undelivered (error 30003)', 'undelivered']);
    assert.ok(alertId);
    assert.deepEqual(sim.refusals, []);
  });
});

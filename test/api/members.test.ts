import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson, asPerson, sessionOf, signIn, type Session } from '../support/sessions.ts';
import { startSmtpSink, type SmtpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

const PASSWORD = 'correct horse battery staple';
const HOUR = 3_600_000;

const tokenOf = (url: string): string => new URL(url).searchParams.get('token') as string;

eachStore('members', { together: true }, (kind) => {
  let h: Harness;
  let smtp: SmtpSink;
  let owner: Session;
  let admin: Session;
  let member: Session;

  before(async () => {
    smtp = await startSmtpSink();
    h = await startHarness(kind, { SMTP_URL: smtp.url });
    await addPerson(h, h.org.id, 'olga@acme.test', PASSWORD, 'owner');
    await addPerson(h, h.org.id, 'adam@acme.test', PASSWORD, 'admin');
    await addPerson(h, h.org.id, 'mia@acme.test', PASSWORD, 'member');
    owner = await signIn(h, 'olga@acme.test', PASSWORD);
    admin = await signIn(h, 'adam@acme.test', PASSWORD);
    member = await signIn(h, 'mia@acme.test', PASSWORD);
  });
  after(async () => {
    await h.close();
    await smtp.close();
  });

  const setPassword = (token: string, password = PASSWORD) =>
    h.req('POST', '/api/v1/auth/set-password', { key: null, body: { token, password } });
  const add = (as: Session, body: Record<string, unknown>) => asPerson(h, as, 'POST', '/api/v1/users', { body });
  const owners = async () => (await h.ok('GET', '/api/v1/users?limit=100')).data.filter((u: { role: string }) => u.role === 'owner').length as number;
  const actions = async (action: string) => (await h.ok('GET', `/api/v1/audit-log?action=${action}&limit=100`)).data as Array<{ target: { id: string } }>;

  it('adds a member with a one-time link, emailed, that sets the password once and signs in', async () => {
    const r = await add(admin, { email: ' Nora@Acme.test', name: 'Nora', role: 'member' });
    assert.equal(r.status, 201, r.raw);
    const { setPasswordLink: link, ...user } = r.body.data;
    assert.deepEqual({ email: user.email, name: user.name, role: user.role }, { email: 'nora@acme.test', name: 'Nora', role: 'member' });
    assert.match(link.url, /^http:\/\/alertflow\.test\/set-password\?token=[\w-]{43}$/);
    assert.equal(Date.parse(link.expiresAt), h.clock.now() + 72 * HOUR);
    assert.equal(link.emailed, true);
    const mail = await eventually('the set-password email', async () => smtp.mails.find((m) => m.to.includes('nora@acme.test')));
    assert.ok(mail.text.includes(link.url), 'the email carries the link');
    assert.match(mail.text, /^adam invited you to Acme on AlertFlow \(role: member\)/, 'it names who invited and the organization');
    assert.match(mail.text, /until \w+day, .* \(UTC\)/, 'the expiry on the organization\'s clock, with its zone');
    // Only the hash is stored.
    const stored = await h.c.store.db.selectFrom('password_links').select('token_hash').execute();
    assert.ok(stored.every((s) => !link.url.includes(s.token_hash)));

    const signedIn = await setPassword(tokenOf(link.url));
    assert.equal(signedIn.status, 200, signedIn.raw);
    assert.equal(signedIn.body.data.user.id, user.id);
    assert.equal((await asPerson(h, sessionOf(signedIn), 'GET', '/api/v1/alerts')).status, 200);
    await signIn(h, 'nora@acme.test', PASSWORD);

    const again = await setPassword(tokenOf(link.url), 'someone else entirely');
    assert.equal(again.status, 404);
    assert.match(again.body.error, /already been used/);
    await signIn(h, 'nora@acme.test', PASSWORD);
    const wrong = await setPassword('not-a-real-token');
    assert.equal(wrong.status, 404);
    assert.match(wrong.body.error, /not valid/);
    assert.ok((await actions('user.created')).some((e) => e.target.id === user.id));
    assert.ok((await actions('user.password_set')).some((e) => e.target.id === user.id));
  });

  it('refuses a taken email (409), bad input (400) and a member adding anyone (403), changing nothing', async () => {
    const before = (await h.ok('GET', '/api/v1/users?limit=100')).meta.total;
    const taken = await add(admin, { email: 'MIA@acme.test', name: 'Mia again', role: 'member' });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'CONFLICT');
    const bad = await add(admin, { email: 'no-at-sign', name: 'X', role: 'boss' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
    const short = await setPassword('whatever', 'short');
    assert.equal(short.status, 400);
    const byMember = await add(member, { email: 'x@acme.test', name: 'X', role: 'member' });
    assert.equal(byMember.status, 403);
    assert.match(byMember.body.error, /users:write/);
    assert.equal((await h.ok('GET', '/api/v1/users?limit=100')).meta.total, before);
  });

  it('lets only an owner make or unmake an owner, and never leaves the organization without one (409)', async () => {
    const ownerId = owner.userId;
    // The harness owner (no password) and Olga are the owners; Olga removes the other one.
    assert.equal((await asPerson(h, owner, 'DELETE', `/api/v1/users/${h.org.ownerId}`)).status, 204);
    assert.equal(await owners(), 1);

    const byAdmin = await asPerson(h, admin, 'PATCH', `/api/v1/users/${admin.userId}`, { body: { role: 'owner' } });
    assert.equal(byAdmin.status, 403);
    assert.match(byAdmin.body.error, /Only an owner/);
    const byKey = await h.req('PATCH', `/api/v1/users/${ownerId}`, { body: { role: 'admin' } });
    assert.equal(byKey.status, 403, 'an API key is no owner');

    const demoteLast = await asPerson(h, owner, 'PATCH', `/api/v1/users/${ownerId}`, { body: { role: 'admin' } });
    assert.equal(demoteLast.status, 409);
    assert.match(demoteLast.body.error, /last owner/);
    const removeLast = await asPerson(h, owner, 'DELETE', `/api/v1/users/${ownerId}`);
    assert.equal(removeLast.status, 409);
    assert.equal(await owners(), 1);

    // A second owner, then both leave at once: exactly one may go.
    const promoted = await asPerson(h, owner, 'PATCH', `/api/v1/users/${admin.userId}`, { body: { role: 'owner', name: 'Adam' } });
    assert.equal(promoted.status, 200, promoted.raw);
    assert.deepEqual([promoted.body.data.role, promoted.body.data.name], ['owner', 'Adam']);
    const both = await Promise.all([
      asPerson(h, owner, 'DELETE', `/api/v1/users/${ownerId}`),
      asPerson(h, admin, 'DELETE', `/api/v1/users/${admin.userId}`),
    ]);
    assert.deepEqual(both.map((r) => r.status).sort(), [204, 409], both.map((r) => r.raw).join(' '));
    assert.equal(await owners(), 1);
    const stay = both[0].status === 409 ? owner : admin;
    owner = stay;
    assert.equal((await asPerson(h, stay, 'GET', '/api/v1/auth/session')).body.data.user.role, 'owner');
    assert.ok((await actions('user.updated')).some((e) => e.target.id === admin.userId));
  });

  it('removing a member ends their sessions at once, unassigns their incidents and takes them off schedules', async () => {
    const leaverId = await addPerson(h, h.org.id, 'leo@acme.test', PASSWORD, 'member');
    const keepId = await addPerson(h, h.org.id, 'kim@acme.test', PASSWORD, 'member');
    const leaver = await signIn(h, 'leo@acme.test', PASSWORD);
    const schedule = await h.ok('POST', '/api/v1/schedules', { body: { name: 'Ops', overrides: [{ userId: leaverId, startsAt: '2026-11-21T00:00:00.000Z', endsAt: '2026-11-22T00:00:00.000Z' }], layers: [
      { name: 'Both', startsAt: '2026-11-21T00:00:00.000Z', rotation: 'daily', users: [leaverId, keepId] },
      { name: 'Only Leo', startsAt: '2026-11-21T00:00:00.000Z', rotation: 'daily', users: [leaverId] },
    ] } }, 201);
    await h.ok('POST', '/api/v1/workflows', { body: { name: 'page', trigger: 'alert.created', actions: [{ type: 'create_incident', title: 'Disk full' }, { type: 'assign', userId: leaverId }] } }, 201);
    const integ = await h.integration();
    const alertId = await h.ingestAlert(integ.path, { title: 'disk', severity: 'high' });
    const incidentId = await eventually('the assigned incident', async () => {
      const id = (await h.ok('GET', `/api/v1/alerts/${alertId}`)).data.incidentId as string | null;
      return id && (await h.ok('GET', `/api/v1/incidents/${id}`)).data.assigneeId === leaverId ? id : undefined;
    });

    const removed = await asPerson(h, owner, 'DELETE', `/api/v1/users/${leaverId}`);
    assert.equal(removed.status, 204, removed.raw);
    assert.equal((await asPerson(h, leaver, 'GET', '/api/v1/alerts')).status, 401);
    assert.equal((await h.req('POST', '/api/v1/auth/login', { key: null, body: { email: 'leo@acme.test', password: PASSWORD } })).status, 401);
    const incident = (await h.ok('GET', `/api/v1/incidents/${incidentId}`)).data;
    assert.equal(incident.assigneeId, null);
    const last = incident.timeline.at(-1);
    assert.deepEqual([last.type, last.actor, last.data.to, last.data.reason], ['assigned', { type: 'user', id: owner.userId }, null, 'member_removed']);
    const s = (await h.ok('GET', `/api/v1/schedules/${schedule.data.id}`)).data;
    assert.deepEqual(s.layers.map((l: { name: string; users: string[] }) => [l.name, l.users]), [['Both', [keepId]]]);
    assert.deepEqual(s.overrides, []);
    assert.ok((await actions('user.deleted')).some((e) => e.target.id === leaverId));
    assert.equal((await h.req('DELETE', `/api/v1/users/${leaverId}`)).status, 404);
  });

  it('lets every member change their own name and password; the password change ends their other sessions', async () => {
    const renamed = await asPerson(h, member, 'PATCH', '/api/v1/users/me', { body: { name: 'Mia M.' } });
    assert.equal(renamed.status, 200, renamed.raw);
    assert.equal(renamed.body.data.name, 'Mia M.');
    assert.equal((await h.req('PATCH', '/api/v1/users/me', { body: { name: 'key' } })).status, 403, 'an API key has no profile');

    const other = await signIn(h, 'mia@acme.test', PASSWORD);
    const wrong = await asPerson(h, member, 'POST', '/api/v1/users/me/password', { body: { currentPassword: 'guess', newPassword: 'a brand new password' } });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.details[0].path, '/currentPassword');
    const changed = await asPerson(h, member, 'POST', '/api/v1/users/me/password', { body: { currentPassword: PASSWORD, newPassword: 'a brand new password' } });
    assert.equal(changed.status, 204, changed.raw);
    assert.equal((await asPerson(h, member, 'GET', '/api/v1/alerts')).status, 200, 'this session stays');
    assert.equal((await asPerson(h, other, 'GET', '/api/v1/alerts')).status, 401, 'the other one ends');
    await signIn(h, 'mia@acme.test', 'a brand new password');
    assert.ok((await actions('user.password_changed')).some((e) => e.target.id === member.userId));
  });

  it('says an expired link has expired, and a new link works', async () => {
    // Last: the sessions above expire with the clock.
    const r = await h.req('POST', '/api/v1/users', { body: { email: 'late@acme.test', name: 'Late', role: 'admin' } });
    h.clock.advance(72 * HOUR + 1);
    const expired = await setPassword(tokenOf(r.body.data.setPasswordLink.url));
    assert.equal(expired.status, 404);
    assert.match(expired.body.error, /expired/);
    const fresh = await h.req('POST', `/api/v1/users/${r.body.data.id}/password-link`);
    assert.equal(fresh.status, 201, fresh.raw);
    assert.equal((await setPassword(tokenOf(fresh.body.data.setPasswordLink.url))).status, 200);
  });
});

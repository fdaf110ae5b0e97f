import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createContainer, type Container } from '../../src/container.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { startHarness, type Harness, type Res } from '../support/harness.ts';
import { addPerson } from '../support/sessions.ts';
import { REDIS_URL, STORE_KINDS } from '../support/stores.ts';

/**
 * Issue 25 rows 4 and 5: parallel password guesses, and locking the owner out. Each attempt is taken from its
 * budgets before the password is checked, so 100 guesses in parallel check only as many passwords as the
 * budget holds; a browser the person signed in from before (its `af_device` cookie) is not locked out by
 * failures elsewhere. On PostgreSQL the budgets are in Redis and the guesses are split between two instances.
 * Emails and addresses are random: Redis outlives a run, and its windows follow the test clock.
 */
const PASSWORD = 'correct horse battery staple';
const GUESSES = 100;
const PER_ACCOUNT_ADDRESS = 5;
const PER_ACCOUNT = 10;
const PER_DEVICE = 10;

const unique = () => randomBytes(4).toString('hex');
const address = (run: string, i: number) => `10.${parseInt(run.slice(0, 2), 16)}.${parseInt(run.slice(2, 4), 16)}.${i + 1}`;
const cookieOf = (r: Res, name: string): string => {
  const raw = r.headers['set-cookie'];
  const found = (Array.isArray(raw) ? raw : [String(raw)]).find((c) => c.startsWith(`${name}=`));
  assert.ok(found, `no ${name} cookie in ${JSON.stringify(raw)}`);
  return found.split(';')[0] as string;
};
const count = (answers: Res[], status: number) => answers.filter((r) => r.status === status).length;

for (const kind of STORE_KINDS) {
  describe(`sign-in guessing (${kind}${kind === 'postgres' ? ', Redis, two instances' : ''})`, () => {
    let h: Harness;
    let second: { c: Container; app: App } | undefined;
    before(async () => {
      h = await startHarness(kind, {
        RATE_LIMIT_SIGN_IN_FAILURES_PER_ADDRESS: '1000', RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS: String(PER_ACCOUNT_ADDRESS),
        RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT: String(PER_ACCOUNT), RATE_LIMIT_SIGN_IN_FAILURES_PER_DEVICE: String(PER_DEVICE),
        ...(kind === 'postgres' && { REDIS_URL }),
      });
      if (kind === 'postgres') {
        const c = await createContainer(h.config, { log: pino({ level: 'silent' }), clock: h.clock, workers: false });
        const app = await buildApp(c, pino({ level: 'silent' }));
        await app.ready();
        second = { c, app };
      }
    });
    after(async () => {
      if (second) {
        await second.app.close();
        await second.c.close();
      }
      await h.close();
    });

    /** A sign-in, through one instance or the other (alternating on PostgreSQL). */
    const login = async (i: number, email: string, password: string, ip: string, cookie?: string): Promise<Res> => {
      const headers = { ...(cookie !== undefined && { cookie }) };
      if (second === undefined || i % 2 === 0) return h.req('POST', '/api/v1/auth/login', { key: null, ip, headers, body: { email, password } });
      const r = await second.app.inject({ method: 'POST', url: '/api/v1/auth/login', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify({ email, password }), remoteAddress: ip });
      return { status: r.statusCode, headers: r.headers, body: JSON.parse(r.body), raw: r.body };
    };
    const ids = new Map<string, string>();
    const person = async () => {
      const email = `ada-${unique()}@acme.test`;
      ids.set(email, await addPerson(h, h.org.id, email, PASSWORD));
      return email;
    };
    const guesses = (email: string, ip: (i: number) => string) =>
      Promise.all(Array.from({ length: GUESSES }, (_, i) => login(i, email, i === GUESSES - 1 ? PASSWORD : `wrong ${i}`, ip(i))));

    it('100 parallel guesses from one address: only the (account, address) budget of passwords is checked, the rest are 429 at once, the right one too', { timeout: 120_000 }, async () => {
      const email = await person();
      const run = unique();
      const answers = await guesses(email, () => address(run, 0));
      // At most the (account, address) budget is checked. It can be fewer: an attempt the per-address budget refuses
      // holds its (account, address) point until it gives it back, and a parallel guess can meet that moment.
      const checked = count(answers, 401) + count(answers, 200);
      assert.ok(checked >= 1 && checked <= PER_ACCOUNT_ADDRESS, answers.map((r) => r.status).join(','));
      assert.equal(count(answers, 429), GUESSES - checked);
      for (const r of answers.filter((a) => a.status === 429)) assert.equal(r.body.code, 'RATE_LIMITED');
      assert.equal((await login(0, email, PASSWORD, address(run, 0))).status, 429, 'the right password from that address, once its budget is spent');
      assert.equal((await login(1, email, PASSWORD, address(run, 1))).status, 200, 'one address alone does not lock the account');
    });

    it('100 parallel guesses from 100 addresses: only the account\'s budget of passwords is checked; the 11th guess and the right one are refused', { timeout: 120_000 }, async () => {
      const email = await person();
      const run = unique();
      const answers = await guesses(email, (i) => address(run, i));
      assert.equal(count(answers, 429), GUESSES - PER_ACCOUNT, answers.map((r) => r.status).join(','));
      assert.equal(count(answers, 401), PER_ACCOUNT, 'the right password came last: refused with the others');
      assert.equal((await login(0, email, PASSWORD, address(unique(), 0))).status, 429, 'an unknown device, from a new address');
      const audited = await h.c.store.db.selectFrom('audit_events').select('id').where('action', '=', 'auth.sign_in_failed')
        .where('target_id', '=', ids.get(email) as string).execute();
      assert.equal(audited.length, PER_ACCOUNT, 'each password checked is audited, no more');
    });

    it('an attacker locks the account out; the owner\'s browser with its device cookie still signs in, without it (or with a forged one, or another account\'s) refused', { timeout: 120_000 }, async () => {
      const email = await person();
      const other = await person();
      const run = unique();
      const home = address(run, 200);
      const owner = await login(0, email, PASSWORD, home);
      assert.equal(owner.status, 200, owner.raw);
      const device = cookieOf(owner, 'af_device');
      assert.match(String(owner.headers['set-cookie']), /af_device=[^;]+;.*Path=\/api\/v1\/auth/i);
      const otherDevice = cookieOf(await login(1, other, PASSWORD, home), 'af_device');

      const attack = await Promise.all(Array.from({ length: 3 * PER_ACCOUNT }, (_, i) => login(i, email, `wrong ${i}`, address(run, i))));
      assert.equal(count(attack, 401), PER_ACCOUNT);
      assert.equal(count(attack, 429), 2 * PER_ACCOUNT);

      assert.equal((await login(0, email, PASSWORD, home)).status, 429, 'the owner on a new device: refused');
      const [nonce] = device.slice('af_device='.length).split('.');
      for (const cookie of [`af_device=${nonce}.${'A'.repeat(43)}`, `af_device=${unique()}.x`, otherDevice]) {
        assert.equal((await login(1, email, PASSWORD, home, cookie)).status, 429, `${cookie} is not this account's device`);
      }
      const back = await login(1, email, PASSWORD, home, device);
      assert.equal(back.status, 200, back.raw);
      assert.equal(back.body.data.user.email, email);
      assert.notEqual(cookieOf(back, 'af_device'), device, 'a new device cookie at each sign-in');
      assert.equal((await login(0, email, PASSWORD, address(run, 3), cookieOf(back, 'af_device'))).status, 200, 'the device, from any address');

      // A stolen device cookie buys only that device's budget of guesses.
      const stolen = cookieOf(back, 'af_device');
      const withIt = await Promise.all(Array.from({ length: 3 * PER_DEVICE }, (_, i) => login(i, email, `wrong ${i}`, address(run, i), stolen)));
      assert.equal(count(withIt, 401), PER_DEVICE);
      assert.equal(count(withIt, 429), 2 * PER_DEVICE);
      assert.equal((await login(0, email, PASSWORD, home, stolen)).status, 429);

      h.clock.advance(15 * 60_000);
      assert.equal((await login(0, email, PASSWORD, address(unique(), 0))).status, 200, 'after the window, from anywhere');
    });
  });
}

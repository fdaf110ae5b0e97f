import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/db/database.ts';
import { pagerdutyData, pagerdutyHandler, PD_TOKEN } from '../support/fixtures/pagerduty.ts';
import { createOrg, runCli, type CreatedOrg } from '../support/process.ts';
import { createTestStore, type TestStore } from '../support/stores.ts';
import { startFixture, type Fixture } from '../support/vendor-fixture.ts';

/** `alertflow import` as an operator runs it: a separate process against a PagerDuty stand-in. */
describe('alertflow import (CLI process)', () => {
  let store: TestStore;
  let fx: Fixture;
  let org: CreatedOrg;
  const env = () => ({ DATABASE_URL: store.url });
  const args = (...more: string[]) => ['import', 'pagerduty', '--org', org.org.id, '--api-url', fx.url, '--token', PD_TOKEN, ...more];

  before(async () => {
    store = await createTestStore('sqlite');
    fx = await startFixture(pagerdutyHandler(pagerdutyData()));
    // Alice alone is a member already; the others come with --create-users.
    org = await createOrg(store.url, 'Acme', 'alice@example.com');
  });
  after(async () => {
    await fx?.close();
    await store?.drop();
  });

  it('prints the plan and changes nothing; --apply imports; run again, 0 created, 0 updated; the token is never echoed', async () => {
    const plan = await runCli(args(), env());
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /plan only, nothing was changed/);
    assert.match(plan.stdout, /Would create \(\d+\):\n {2}user|Would create \(\d+\):\n {2}contact_method/);
    assert.match(plan.stdout, /PCAROL3 +Carol Cole <carol@example\.com>: no member of this organization has the email carol@example\.com/);

    const applied = await runCli(args('--apply', '--json', '--create-users'), env());
    assert.equal(applied.code, 0, applied.stderr);
    const result = JSON.parse(applied.stdout);
    assert.equal(result.applied, true);
    assert.ok(result.create.some((i: { kind: string }) => i.kind === 'schedule'));
    const carol = result.create.find((i: { sourceId: string }) => i.sourceId === 'PCAROL3');
    assert.match(carol?.credentials?.setPasswordLink ?? '', /\/set-password\?token=/, 'a member made without a password gets a link');
    assert.ok(result.skip.every((s: Record<string, unknown>) => ['kind', 'sourceId', 'name', 'reason'].every((k) => typeof s[k] === 'string')));

    const again = await runCli(args('--apply'), env());
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^0 created, 0 updated, \d+ not carried over, \d+ unchanged\.$/m);

    for (const out of [plan, applied, again]) assert.doesNotMatch(out.stdout + out.stderr, new RegExp(PD_TOKEN.replace(/[+]/g, '\\+')));
    const schedules = await fetchCount(store, org);
    assert.equal(schedules, 2);
  });

  it('a refused token: exit 1 and one line saying so, without the token', async () => {
    const r = await runCli(['import', 'pagerduty', '--org', org.org.id, '--api-url', fx.url, '--token', 'not-the-token-xyz'], env());
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^alertflow: PagerDuty refused the token \(HTTP 401 for GET \/users\): check --token/);
    assert.doesNotMatch(r.stderr, /not-the-token-xyz/);
  });
});

/** The schedules of the organization, counted in its store. */
async function fetchCount(store: TestStore, org: CreatedOrg): Promise<number> {
  const s = await createStore(store.config);
  try {
    const rows = await s.db.selectFrom('schedules').select('id').where('org_id', '=', org.org.id).execute();
    return rows.length;
  } finally {
    await s.close();
  }
}

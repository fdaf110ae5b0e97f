import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pagerdutyData, pagerdutyHandler, PD_THROTTLED, PD_TOKEN } from '../support/fixtures/pagerduty.ts';
import type { Org } from '../support/harness.ts';
import { createdId, has, importBed, skipped } from '../support/imports.ts';
import { eachStore } from '../support/stores.ts';

/** `alertflow import pagerduty` against a PagerDuty stand-in (test/support/fixtures/pagerduty.ts), on both stores. */
eachStore('import from PagerDuty', { together: true }, (kind) => {
  const data = pagerdutyData();
  const bed = importBed(kind, () => pagerdutyHandler(data));

  const run = (apply: boolean, org: Org = bed.h.org, createUsers = false) =>
    bed.imports.run({ system: 'pagerduty', orgId: org.id, apiUrl: bed.fx.url, token: PD_TOKEN, apply, createUsers });

  it('plans every object without changing anything, says why each thing is not carried over, pages and bed.waits out a 429', async () => {
    bed.fx.throttle('/schedules', 1, PD_THROTTLED);
    const plan = await run(false);
    assert.equal(plan.applied, false);
    for (const [k, id] of [['schedule', 'PSCHED1'], ['schedule', 'PSCHED2'], ['escalation_policy', 'PEPCHK1'], ['escalation_policy', 'PEPLOOP'],
      ['integration', 'PINTAM1'], ['integration', 'PINTEV2'], ['workflow', 'PSVCHK1'], ['workflow', 'PSVBAT1'],
      ['contact_method', 'PCMAL01'], ['contact_method', 'PCMBO01'], ['notification_rules', 'PALICE1'], ['notification_rules', 'PBOB002']] as const) {
      assert.ok(has(plan, 'create', k, id), `${k} ${id} planned: ${JSON.stringify(plan.create)}`);
    }
    assert.ok(has(plan, 'unchanged', 'user', 'PALICE1') && has(plan, 'unchanged', 'user', 'PBOB002'), 'members matched by email, case aside');
    skipped(plan, 'user', 'PCAROL3', /no member .* carol@example\.com.*--create-users/);
    skipped(plan, 'contact_method', 'PCMAL02', /a phone contact method: AlertFlow pages members by email, .*ntfy/);
    skipped(plan, 'notification_rule', 'PNRAL03', /low-urgency/);
    skipped(plan, 'notification_rule', 'PNRAL02', /contact method that is not imported/);
    skipped(plan, 'schedule_layer', 'PSCHED1/PLOLD01', /ended 2026-03-01/);
    skipped(plan, 'schedule_layer', 'PSCHED1/Business week', /Carol Cole <carol@example\.com> is not imported/);
    skipped(plan, 'schedule_override', 'PSCHED1/2026-11-28T08:00:00.000Z', /Carol/);
    skipped(plan, 'schedule_layer', 'PSCHED2/PLHALF1', /inside a turn/);
    skipped(plan, 'escalation_step', 'PEPCHK1/2', /its wait is added to the step before/);
    skipped(plan, 'escalation_policy', 'PEPLOOP', /repeats 9 times/);
    skipped(plan, 'escalation_rule', 'PEPLOOP/PERLP01', /round robin/);
    skipped(plan, 'integration', 'PINTEM1', /email/);
    skipped(plan, 'service', 'PSVCHK1', /auto-resolve timeout/);
    skipped(plan, 'event_orchestration', 'b02e973d-9620-4e0a-9edc-00fedf7d4694', /workflows/);

    assert.equal((await bed.h.ok('GET', '/api/v1/schedules')).data.length, 0, 'a plan writes nothing');
    assert.equal((await bed.h.ok('GET', '/api/v1/integrations')).data.length, 0);
    assert.deepEqual(await bed.h.c.contacts.list(bed.h.org.id, bed.people.alice), []);
    // Paged by PagerDuty's own cap (2 per page): three people take two pages.
    assert.deepEqual(bed.fx.requests.filter((r) => r.path === '/users').map((r) => r.query.get('offset')), ['0', '2']);
    // No Retry-After in PagerDuty's 429: the first pause of the back-off.
    assert.deepEqual(bed.waits, [1000]);
    assert.ok(bed.fx.requests.every((r) => r.authorization === `Token token=${PD_TOKEN}`));
  });

  it('applies: schedules keep their layers, restrictions and overrides, policies their steps, delays and repeats', async () => {
    const done = await run(true);
    assert.equal(done.applied, true);
    assert.equal(done.update.length, 0);
    const id = (k: string, s: string) => createdId(done, k, s);

    const primary = (await bed.h.ok('GET', `/api/v1/schedules/${id('schedule', 'PSCHED1')}`)).data;
    assert.equal(primary.timezone, 'Europe/Berlin');
    assert.deepEqual(primary.layers.map((l: { name: string }) => l.name), ['Business week', 'Evenings'], 'the bottom layer first');
    assert.deepEqual(primary.layers[0], {
      name: 'Business week', startsAt: '2026-01-05T08:00:00.000Z', rotation: 'weekly', shiftHours: null, users: [bed.people.alice, bed.people.bob],
      restrictions: [{ days: ['mon', 'tue', 'wed', 'thu'], from: '09:00', to: '09:00' }, { days: ['fri'], from: '09:00', to: '21:00' }],
    });
    assert.deepEqual(primary.layers[1].restrictions, [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from: '18:00', to: '08:00' }]);
    assert.deepEqual(primary.overrides, [{ userId: bed.people.bob, startsAt: '2026-11-24T08:00:00.000Z', endsAt: '2026-11-25T08:00:00.000Z' }]);
    const onCall = async (at: string) =>
      (await bed.h.ok('GET', `/api/v1/schedules/current-oncall?scheduleId=${primary.id}&at=${at}`)).data[0].user?.id;
    assert.equal(await onCall('2026-11-23T09:30:00.000Z'), bed.people.alice, 'Monday morning: the business week layer');
    assert.equal(await onCall('2026-11-23T19:00:00.000Z'), bed.people.bob, 'Monday evening: the evenings layer on top');
    assert.equal(await onCall('2026-11-22T12:00:00.000Z'), undefined, 'Sunday noon: outside both restrictions');
    assert.equal(await onCall('2026-11-24T12:00:00.000Z'), bed.people.bob, 'the override');

    const secondary = (await bed.h.ok('GET', `/api/v1/schedules/${id('schedule', 'PSCHED2')}`)).data;
    assert.deepEqual(secondary.layers[0], {
      name: 'Half days', startsAt: '2026-12-01T06:00:00.000Z', rotation: 'custom', shiftHours: 12, users: [bed.people.alice, bed.people.bob], restrictions: [],
    });

    const checkout = (await bed.h.ok('GET', `/api/v1/escalation-policies/${id('escalation_policy', 'PEPCHK1')}`)).data;
    assert.deepEqual(checkout.steps, [
      { delayMinutes: 25, targets: [{ type: 'user', id: bed.people.alice }, { type: 'schedule', id: primary.id }] },
      { delayMinutes: 30, targets: [{ type: 'schedule', id: secondary.id }, { type: 'user', id: bed.people.bob }] },
    ]);
    assert.equal(checkout.repeat, 2);
    assert.equal((await bed.h.ok('GET', `/api/v1/escalation-policies/${id('escalation_policy', 'PEPLOOP')}`)).data.repeat, 5);

    const am = (await bed.h.ok('GET', `/api/v1/integrations/${id('integration', 'PINTAM1')}`)).data;
    assert.deepEqual([am.name, am.preset, am.enabled], ['Checkout API: Alertmanager', 'alertmanager', true]);
    const batch = (await bed.h.ok('GET', `/api/v1/integrations/${id('integration', 'PINTEV2')}`)).data;
    assert.deepEqual([batch.preset, batch.enabled], ['standard', false], 'a disabled service\'s integration stays off');
    assert.deepEqual(done.create.find((i) => i.sourceId === 'PINTAM1')?.credentials,
      { pagerdutyUrl: am.pagerdutyUrl, routingKey: am.routingKey, ingestUrl: am.ingestUrl }, 'what a sender needs is shown: the Events API URL and routing key');
    assert.match(am.routingKey, /^[0-9a-f]{32}$/);

    const route = (await bed.h.ok('GET', `/api/v1/workflows/${id('workflow', 'PSVCHK1')}`)).data;
    assert.deepEqual(route.conditions, { field: 'integrationId', op: 'in', value: [am.id] });
    assert.equal(route.actions[0].escalationPolicyId, checkout.id);

    const aliceMethods = await bed.h.c.contacts.list(bed.h.org.id, bed.people.alice);
    assert.deepEqual(aliceMethods.map((m) => [m.type, m.target]), [['email', { to: 'alice@example.com' }]]);
    assert.deepEqual(await bed.h.c.contacts.rules(bed.h.org.id, bed.people.alice), [{ contactMethodId: aliceMethods[0]?.id, afterMinutes: 0 }]);
    assert.equal((await bed.h.c.contacts.rules(bed.h.org.id, bed.people.bob))[0]?.afterMinutes, 5);

    // Through the services: their audit trail names the import.
    const audit = (await bed.h.ok('GET', '/api/v1/audit-log?action=schedule.created')).data;
    assert.equal(audit[0].actor.id, 'import:pagerduty');
  });

  it('run again, it changes nothing; after an upstream change, it updates just that object; one deleted here comes back', async () => {
    const again = await run(true);
    assert.deepEqual([again.create.length, again.update.length], [0, 0], JSON.stringify([again.create, again.update]));
    const batch = again.unchanged.find((i) => i.sourceId === 'PINTEV2')?.id;
    await bed.h.ok('DELETE', `/api/v1/integrations/${batch}`, {}, 204);
    const back = await run(true);
    assert.deepEqual(back.create.map((i) => i.sourceId), ['PINTEV2'], 'made again, as the source still has it');
    assert.deepEqual(back.update.map((i) => i.sourceId), ['PSVBAT1'], 'and its route follows the new integration');
    data.policies[0]!.escalation_rules[0].escalation_delay_in_minutes = 20;
    const changed = await run(true);
    assert.deepEqual(changed.create, []);
    assert.deepEqual(changed.update.map((i) => [i.kind, i.sourceId]), [['escalation_policy', 'PEPCHK1']]);
    const policy = (await bed.h.ok('GET', `/api/v1/escalation-policies/${changed.update[0]?.id}`)).data;
    assert.equal(policy.steps[0].delayMinutes, 35);
  });

  it('two runs at once into another organization create each object once', async () => {
    const other = await bed.h.newOrg('Other');
    const [a, b] = await Promise.all([run(true, other, true), run(true, other, true)]);
    const made = [...a.create, ...b.create].filter((i) => i.kind !== 'user').map((i) => `${i.kind}/${i.sourceId}`);
    assert.equal(new Set(made).size, made.length, `created twice: ${made.join(', ')}`);
    assert.equal((await bed.h.ok('GET', '/api/v1/schedules', { key: other.key })).data.length, 2);
    assert.equal((await bed.h.ok('GET', '/api/v1/integrations', { key: other.key })).data.length, 2);
    // --create-users: the three people became members without a password, each once.
    const members = (await bed.h.ok('GET', '/api/v1/users', { key: other.key })).data.map((u: { email: string }) => u.email).sort();
    assert.deepEqual(members, ['alice@example.com', 'bob@example.com', 'carol@example.com', 'owner@acme.test']);
    assert.equal((await bed.h.ok('GET', '/api/v1/schedules', { key: bed.h.org.key })).data.length, 2, 'the first organization is untouched');
  });

  it('a refused token stops the run with a clear message that does not repeat the token', async () => {
    await assert.rejects(bed.imports.run({ system: 'pagerduty', orgId: bed.h.org.id, apiUrl: bed.fx.url, token: 'wrong-token-value', apply: false, createUsers: false }), (err: Error) => {
      assert.match(err.message, /PagerDuty refused the token \(HTTP 401/);
      assert.doesNotMatch(err.message, /wrong-token-value/);
      return true;
    });
  });
});

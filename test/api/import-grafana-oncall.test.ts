import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ONCALL_THROTTLED, ONCALL_TOKEN, oncallData, oncallHandler } from '../support/fixtures/grafana-oncall.ts';
import { createdId, has, importBed, skipped } from '../support/imports.ts';
import { eachStore } from '../support/stores.ts';

/** `alertflow import grafana-oncall` against a Grafana OnCall stand-in (test/support/fixtures/grafana-oncall.ts), on both stores. */
eachStore('import from Grafana OnCall', { together: true }, (kind) => {
  const data = oncallData();
  const bed = importBed(kind, () => oncallHandler(data));
  const run = (apply: boolean) => bed.imports.run({ system: 'grafana-oncall', orgId: bed.h.org.id, apiUrl: `${bed.fx.url}/`, token: ONCALL_TOKEN, apply, createUsers: false });

  it('plans without writing, follows `next` links, honours Retry-After, and lists what Grafana\'s own migrator would drop or round', async () => {
    bed.fx.throttle('/api/v1/schedules/', 1, ONCALL_THROTTLED);
    const plan = await run(false);
    for (const [k, id] of [['schedule', 'SWEB001'], ['escalation_policy', 'FCHAIN1'], ['integration', 'CAMGR01'], ['integration', 'CHOOK03'],
      ['workflow', 'RDEF001'], ['contact_method', 'UALICE1/email'], ['notification_rules', 'UBOB002']] as const) {
      assert.ok(has(plan, 'create', k, id), `${k} ${id} planned`);
    }
    skipped(plan, 'user', 'UFRANK3', /frank@example\.com/);
    skipped(plan, 'notification_rule', 'NALICE3', /notifies by phone call: AlertFlow pages members by/);
    skipped(plan, 'notification_rule', 'NALICE4', /"important"/);
    skipped(plan, 'oncall_shift', 'OWKND02', /UFRANK3 share a turn with UBOB002/);
    skipped(plan, 'oncall_shift', 'OOLD005', /ended 2026-05-31 22:00 UTC/);
    skipped(plan, 'oncall_shift', 'OMONTH6', /repeats monthly/);
    skipped(plan, 'oncall_shift', 'OLAUN04', /one-off shift: AlertFlow makes it an override/);
    skipped(plan, 'schedule', 'SICAL02', /iCal/);
    skipped(plan, 'escalation_step', 'EPNXT04', /round robin/);
    skipped(plan, 'escalation_step', 'EPGRP08', /notify_user_group/);
    skipped(plan, 'escalation_step', 'EPRES10', /never reached/);
    skipped(plan, 'escalation_step', 'EPWAI07', /90 seconds: rounded up to 2 minutes/);
    skipped(plan, 'escalation_step', 'FCHAIN1/3', /frank <frank@example\.com> is not imported/);
    skipped(plan, 'route', 'RREG001', /regular expression over the whole alert payload/);
    skipped(plan, 'route', 'RDEF003', /no escalation chain/);
    skipped(plan, 'integration', 'CMAIL02', /email/);
    assert.equal((await bed.h.ok('GET', '/api/v1/schedules')).data.length, 0);
    assert.deepEqual(bed.fx.requests.filter((r) => r.path === '/api/v1/users/').map((r) => r.query.get('page')), [null, '2']);
    assert.ok(bed.fx.requests.filter((r) => r.path === '/api/v1/on_call_shifts/').every((r) => r.query.get('schedule_id') === 'SWEB001'));
    assert.deepEqual(bed.waits, [7000], 'the Retry-After of the 429');
  });

  it('applies: a rotation masked by weekdays keeps who is on which day, levels become layer order, waits stay to the minute', async () => {
    const done = await run(true);
    const { alice, bob } = bed.people;
    const platform = (await bed.h.ok('GET', `/api/v1/schedules/${createdId(done, 'schedule', 'SWEB001')}`)).data;
    assert.equal(platform.timezone, 'Europe/Berlin');
    assert.deepEqual(platform.layers.map((l: { name: string }) => l.name), ['Weekdays (mon)', 'Weekdays (tue)', 'Weekdays (wed)', 'Weekdays (thu)', 'Weekdays (fri)', 'Weekends']);
    assert.deepEqual(platform.layers[0], { name: 'Weekdays (mon)', startsAt: '2026-11-02T08:00:00.000Z', rotation: 'weekly', shiftHours: null, users: [alice, bob], restrictions: [{ days: ['mon'], from: '09:00', to: '17:00' }] });
    assert.deepEqual(platform.layers[1].users, [bob, alice]);
    assert.deepEqual(platform.layers[5], { name: 'Weekends', startsAt: '2026-11-02T08:00:00.000Z', rotation: 'weekly', shiftHours: null, users: [bob, alice], restrictions: [{ days: ['sat', 'sun'], from: '09:00', to: '09:00' }] });
    assert.deepEqual(platform.overrides, [
      { userId: bob, startsAt: '2026-11-24T11:00:00.000Z', endsAt: '2026-11-24T13:00:00.000Z' },
      { userId: alice, startsAt: '2026-11-26T07:00:00.000Z', endsAt: '2026-11-26T17:00:00.000Z' },
    ]);
    const onCall = async (at: string) => (await bed.h.ok('GET', `/api/v1/schedules/current-oncall?scheduleId=${platform.id}&at=${at}`)).data[0].user?.id;
    // Grafana OnCall turns once per weekday: Alice, Bob, Alice, Bob, Alice, then Bob on the next Monday.
    assert.equal(await onCall('2026-11-20T09:00:00.000Z'), alice, 'Friday of the third week: occurrence 14');
    assert.equal(await onCall('2026-11-23T09:00:00.000Z'), bob, 'Monday of the fourth week: occurrence 15');
    assert.equal(await onCall('2026-11-24T09:00:00.000Z'), alice, 'Tuesday: occurrence 16');
    assert.equal(await onCall('2026-11-21T11:00:00.000Z'), bob, 'Saturday: the weekend rotation\'s third week');
    assert.equal(await onCall('2026-11-23T17:00:00.000Z'), undefined, 'Monday 18:00 in Berlin: nobody');
    assert.equal(await onCall('2026-11-24T12:00:00.000Z'), bob, 'the override');

    const policy = (await bed.h.ok('GET', `/api/v1/escalation-policies/${createdId(done, 'escalation_policy', 'FCHAIN1')}`)).data;
    assert.deepEqual(policy.steps, [
      { delayMinutes: 25, targets: [{ type: 'user', id: alice }, { type: 'schedule', id: platform.id }] },
      { delayMinutes: 2, targets: [{ type: 'user', id: bob }] },
    ]);
    assert.equal(policy.repeat, 5);
    const am = (await bed.h.ok('GET', `/api/v1/integrations/${createdId(done, 'integration', 'CAMGR01')}`)).data;
    assert.equal(am.preset, 'alertmanager');
    const route = (await bed.h.ok('GET', `/api/v1/workflows/${createdId(done, 'workflow', 'RDEF001')}`)).data;
    assert.deepEqual([route.conditions, route.actions[0].escalationPolicyId], [{ field: 'integrationId', op: 'in', value: [am.id] }, policy.id]);
    assert.deepEqual((await bed.h.c.contacts.rules(bed.h.org.id, bob)).map((r) => r.afterMinutes), [1]);
  });

  it('run again, nothing changes; a longer wait upstream updates that chain only', async () => {
    const again = await run(true);
    assert.deepEqual([again.create.length, again.update.length], [0, 0]);
    (data.policies[2] as { duration: number }).duration = 1200;
    const changed = await run(true);
    assert.deepEqual(changed.update.map((i) => `${i.kind} ${i.sourceId}`), ['escalation_policy FCHAIN1']);
    assert.equal((await bed.h.ok('GET', `/api/v1/escalation-policies/${changed.update[0]?.id}`)).data.steps[0].delayMinutes, 35);
  });
});

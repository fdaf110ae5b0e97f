import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OG_THROTTLED, OG_TOKEN, opsgenieData, opsgenieHandler } from '../support/fixtures/opsgenie.ts';
import { createdId, has, importBed, skipped } from '../support/imports.ts';
import { eachStore } from '../support/stores.ts';

/** `alertflow import opsgenie` against an Opsgenie stand-in (test/support/fixtures/opsgenie.ts), on both stores. */
eachStore('import from Opsgenie', { together: true }, (kind) => {
  const data = opsgenieData();
  const bed = importBed(kind, () => opsgenieHandler(data));

  const run = (apply: boolean) => bed.imports.run({ system: 'opsgenie', orgId: bed.h.org.id, apiUrl: bed.fx.url, token: OG_TOKEN, apply, createUsers: false });

  it('plans without writing, following the user list\'s next links and waiting out a 429, and says what cannot come', async () => {
    bed.fx.throttle('/v2/schedules', 1, OG_THROTTLED);
    const plan = await run(false);
    for (const [k, id] of [['schedule', 'og-s1'], ['schedule', 'og-s2/og-r3'], ['schedule', 'og-s2/og-r4'], ['escalation_policy', 'og-e1'],
      ['escalation_policy', 'schedule:og-s1'], ['integration', 'og-i1'], ['integration', 'og-i2'], ['integration', 'og-i4'],
      ['workflow', 'og-t1/og-rr1'], ['workflow', 'og-t1/og-rr4'], ['notification_rules', 'og-u1']] as const) {
      assert.ok(has(plan, 'create', k, id), `${k} ${id} planned`);
    }
    skipped(plan, 'user', 'og-u3', /dave@example\.com.*--create-users/);
    skipped(plan, 'contact_method', 'og-c2', /an Opsgenie sms contact: AlertFlow pages members by/);
    skipped(plan, 'contact_method', 'og-c4', /disabled/);
    skipped(plan, 'notification_rule', 'og-nr2', /schedule-start/);
    skipped(plan, 'notification_rule', 'og-nr1/og-st2', /sms pages by a contact method that is not imported/);
    skipped(plan, 'schedule_rotation', 'og-s1/og-r2', /empty turn/);
    skipped(plan, 'schedule_rotation', 'og-s2/og-r4', /ends 2027-01-31/);
    skipped(plan, 'schedule_override', 'og-s1/2026-12-01T08:00:00.000Z', /person og-u9 is not imported/);
    skipped(plan, 'escalation_rule', 'og-e1/3', /team DBAs: AlertFlow has no teams/);
    skipped(plan, 'escalation_rule', 'og-e1/4', /"next" schedule/);
    skipped(plan, 'escalation_rule', 'og-e1/5', /closed/);
    skipped(plan, 'integration', 'og-i3', /email/);
    skipped(plan, 'integration', 'og-i4', /no owner team/);
    skipped(plan, 'integration', 'og-i4', /no AlertFlow preset reads what Nagios sends/);
    skipped(plan, 'routing_rule', 'og-t1/og-rr2', /some times only/);
    skipped(plan, 'routing_rule', 'og-t1/og-rr3', /notifies nobody/);
    skipped(plan, 'schedule_layer', 'og-s1/Business hours', /Dave Doe <dave@example\.com> is not imported/);
    assert.equal((await bed.h.ok('GET', '/api/v1/schedules')).data.length, 0, 'a plan writes nothing');
    assert.deepEqual(bed.fx.requests.filter((r) => r.path === '/v2/users').map((r) => r.query.get('offset')), ['0', '2'], 'the next link was followed');
    assert.deepEqual(bed.waits, [1000]);
  });

  it('applies: rotations that never overlap share a schedule, overlapping ones are split; escalation times become step delays', async () => {
    const done = await run(true);
    const ops = (await bed.h.ok('GET', `/api/v1/schedules/${createdId(done, 'schedule', 'og-s1')}`)).data;
    assert.deepEqual(ops.layers, [
      { name: 'Business hours', startsAt: '2026-01-05T08:00:00.000Z', rotation: 'weekly', shiftHours: null, users: [bed.people.alice, bed.people.bob], restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' }] },
      { name: 'Nights', startsAt: '2026-01-05T17:00:00.000Z', rotation: 'daily', shiftHours: null, users: [bed.people.bob, bed.people.alice], restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from: '17:00', to: '09:00' }] },
    ]);
    assert.deepEqual(ops.overrides, [{ userId: bed.people.bob, startsAt: '2026-11-23T08:00:00.000Z', endsAt: '2026-11-23T16:00:00.000Z' }], 'past overrides left out');
    const onCall = async (at: string) => (await bed.h.ok('GET', `/api/v1/schedules/current-oncall?scheduleId=${ops.id}&at=${at}`)).data[0].user?.id;
    assert.equal(await onCall('2026-11-23T09:30:00.000Z'), bed.people.bob, 'the override');
    assert.equal(await onCall('2026-11-24T09:30:00.000Z'), bed.people.alice, 'Tuesday 10:30 in Berlin: business hours');
    assert.equal(await onCall('2026-11-24T20:00:00.000Z'), bed.people.alice, 'Tuesday 21:00 in Berlin: nights');

    const primary = (await bed.h.ok('GET', `/api/v1/schedules/${createdId(done, 'schedule', 'og-s2/og-r3')}`)).data;
    assert.equal(primary.name, 'Weekend_Schedule: Primary');
    assert.deepEqual([primary.layers[0].rotation, primary.layers[0].shiftHours], ['custom', 48]);
    assert.equal(primary.overrides.length, 1, 'the override of that rotation');
    const shadow = (await bed.h.ok('GET', `/api/v1/schedules/${createdId(done, 'schedule', 'og-s2/og-r4')}`)).data;
    assert.deepEqual(shadow.overrides, []);

    const policy = (await bed.h.ok('GET', `/api/v1/escalation-policies/${createdId(done, 'escalation_policy', 'og-e1')}`)).data;
    assert.deepEqual(policy.steps, [
      { delayMinutes: 5, targets: [{ type: 'schedule', id: ops.id }] },
      { delayMinutes: 25, targets: [{ type: 'user', id: bed.people.bob }] },
      { delayMinutes: 10, targets: [{ type: 'schedule', id: primary.id }, { type: 'schedule', id: shadow.id }] },
    ]);
    assert.equal(policy.repeat, 3);

    const ints = [createdId(done, 'integration', 'og-i1'), createdId(done, 'integration', 'og-i2')];
    const prometheus = (await bed.h.ok('GET', `/api/v1/integrations/${ints[0]}`)).data;
    assert.equal(prometheus.preset, 'alertmanager');
    assert.deepEqual(Object.keys(done.create.find((i) => i.sourceId === 'og-i1')?.credentials ?? {}), ['opsgenieApiUrl', 'genieKey', 'ingestUrl']);
    assert.equal((await bed.h.ok('GET', `/api/v1/integrations/${createdId(done, 'integration', 'og-i4')}`)).data.enabled, false);

    const db = (await bed.h.ok('GET', `/api/v1/workflows/${createdId(done, 'workflow', 'og-t1/og-rr1')}`)).data;
    const dbCriteria = { any: [{ field: 'title', op: 'contains', value: 'database' }, { field: 'labels.service', op: 'eq', value: 'db' }] };
    assert.deepEqual(db.conditions, { all: [{ field: 'integrationId', op: 'in', value: ints }, dbCriteria] });
    assert.equal(db.actions[0].escalationPolicyId, policy.id);
    const fallback = (await bed.h.ok('GET', `/api/v1/workflows/${createdId(done, 'workflow', 'og-t1/og-rr4')}`)).data;
    assert.deepEqual(fallback.conditions, { all: [
      { field: 'integrationId', op: 'in', value: ints },
      { not: { field: 'title', op: 'contains', value: 'database' } },
      { field: 'labels.service', op: 'neq', value: 'db' },
      { not: { field: 'labels.tags', op: 'matches', value: '(^|,)noise(,|$)' } },
    ] }, 'first match wins, as in Opsgenie: not a rule before it, the one that pages nobody included');
    const viaSchedule = (await bed.h.ok('GET', `/api/v1/escalation-policies/${fallback.actions[0].escalationPolicyId}`)).data;
    assert.deepEqual([viaSchedule.name, viaSchedule.steps], ['Notify Ops_Schedule', [{ delayMinutes: 0, targets: [{ type: 'schedule', id: ops.id }] }]]);
    // The workflow does what Opsgenie did: a database alert opens an incident under the escalation.
    const tryOn = async (alert: Record<string, unknown>) =>
      (await bed.h.ok('POST', `/api/v1/workflows/${fallback.id}/test`, { body: { alert: { severity: 'high', integrationId: ints[1], ...alert } } })).data.matched;
    assert.equal(await tryOn({ title: 'database down' }), false, 'the default rule leaves database alerts to the rule before it');
    assert.equal(await tryOn({ title: 'disk full', labels: { tags: 'prod,noise' } }), false, 'and noise to the rule that drops it');
    assert.equal(await tryOn({ title: 'disk full', labels: { tags: 'prod,noisemaker' } }), true, 'a tag is matched whole');

    const rules = await bed.h.c.contacts.rules(bed.h.org.id, bed.people.bob);
    assert.equal(rules[0]?.afterMinutes, 2);
  });

  it('run again, nothing changes; a changed repeat upstream updates that escalation only', async () => {
    const again = await run(true);
    assert.deepEqual([again.create.length, again.update.length], [0, 0]);
    (data.escalations[0] as { repeat: { waitInterval: number } }).repeat.waitInterval = 15;
    const changed = await run(true);
    assert.deepEqual(changed.update.map((i) => `${i.kind} ${i.sourceId}`), ['escalation_policy og-e1']);
    assert.equal((await bed.h.ok('GET', `/api/v1/escalation-policies/${changed.update[0]?.id}`)).data.steps[2].delayMinutes, 15);
  });
});

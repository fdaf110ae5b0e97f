import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EMPTY_ALLOW_LIST } from '../../src/infra/outbound.ts';
import { checkSteps, linkHash, namesPolicy, nextStep, pageKey, signLink, stepTargets, verifyLink, type LinkClaims } from '../../src/modules/escalations/escalations-fns.ts';
import type { Step } from '../../src/modules/escalations/escalations-schemas.ts';

const step = (delayMinutes: number, ...ids: string[]): Step => ({ delayMinutes, targets: ids.map((id) => ({ type: 'user' as const, id })) });

describe('nextStep', () => {
  it('walks the steps, then the rounds, then stops', () => {
    const policy = { steps: [step(5, 'a'), step(10, 'b')], repeat: 1 };
    const walk: Array<[number, number]> = [];
    let at: { repeat: number; step: number } | null = { repeat: 0, step: 1 };
    while (at) {
      walk.push([at.repeat, at.step]);
      at = nextStep(policy, at.repeat, at.step);
    }
    assert.deepEqual(walk, [[0, 1], [0, 2], [1, 1], [1, 2]]);
    assert.equal(nextStep({ steps: [step(0, 'a')], repeat: 0 }, 0, 1), null);
  });
});

describe('stepTargets', () => {
  it('adds the new assignee to step 1 only, once', () => {
    const policy = { steps: [step(5, 'a'), step(5, 'b')] };
    assert.deepEqual(stepTargets(policy, 1, 'z').map((t) => (t as { id: string }).id), ['z', 'a']);
    assert.deepEqual(stepTargets(policy, 1, 'a').map((t) => (t as { id: string }).id), ['a']);
    assert.deepEqual(stepTargets(policy, 2, 'z').map((t) => (t as { id: string }).id), ['b']);
    assert.deepEqual(stepTargets(policy, 1, null).map((t) => (t as { id: string }).id), ['a']);
  });
});

describe('pageKey', () => {
  it('is one per escalation, round, step and recipient', () => {
    const keys = new Set([
      pageKey('esc_1', 0, 1, { userId: 'u', contact: 0 }),
      pageKey('esc_1', 0, 1, { userId: 'u', contact: 1 }),
      pageKey('esc_1', 1, 1, { userId: 'u', contact: 0 }),
      pageKey('esc_1', 0, 2, { userId: 'u', contact: 0 }),
      pageKey('esc_2', 0, 1, { userId: 'u', contact: 0 }),
      pageKey('esc_1', 0, 1, { channel: 'slack', target: { webhookUrl: 'https://a' } }),
      pageKey('esc_1', 0, 1, { channel: 'slack', target: { webhookUrl: 'https://b' } }),
    ]);
    assert.equal(keys.size, 7);
    assert.equal(pageKey('esc_1', 0, 1, { userId: 'u', contact: 0 }), 'esc:esc_1:0:1:u/0');
    // A channel's target (a secret URL) is hashed, not written into the key.
    assert.doesNotMatch(pageKey('esc_1', 0, 1, { channel: 'slack', target: { webhookUrl: 'https://secret' } }), /secret/);
  });
});

describe('checkSteps', () => {
  it('checks channel targets against their channel and collects the ids to look up, with their paths', () => {
    const r = checkSteps([
      { delayMinutes: 0, targets: [{ type: 'user', id: 'u1' }, { type: 'schedule', id: 's1' }] },
      { delayMinutes: 0, targets: [{ type: 'channel', channel: 'teams', target: { webhookUrl: 'javascript:alert(1)' } }, { type: 'channel', channel: 'email', target: { to: 'x@y.test', cc: 'z' } }] },
    ], EMPTY_ALLOW_LIST);
    assert.deepEqual([...r.users], [['u1', '/steps/0/targets/0/id']]);
    assert.deepEqual([...r.schedules], [['s1', '/steps/0/targets/1/id']]);
    assert.deepEqual(r.errors.map((e) => e.path), ['/steps/1/targets/0/target/webhookUrl', '/steps/1/targets/1/target/cc']);
  });

  it('namesPolicy finds escalate actions and create_incident policies', () => {
    assert.ok(namesPolicy([{ type: 'create_incident', escalationPolicyId: 'p' }], 'p'));
    assert.ok(namesPolicy([{ type: 'escalate', policyId: 'p' }], 'p'));
    assert.ok(!namesPolicy([{ type: 'escalate', policyId: 'q' }, { type: 'suppress' }], 'p'));
  });
});

describe('acknowledge links', () => {
  const claims: LinkClaims = { orgId: 'org_1', incidentId: 'inc_1', recipientId: 'usr_1', action: 'acknowledge', expiresAt: 1_000_000 };
  it('verify what they sign until they expire', () => {
    const token = signLink('s3cret', claims);
    assert.deepEqual(verifyLink('s3cret', token, 999_999), { ok: true, claims });
    assert.deepEqual(verifyLink('s3cret', token, 1_000_000), { ok: false, reason: 'expired', claims });
  });
  it('refuse another secret, a changed claim, a changed signature and garbage', () => {
    const token = signLink('s3cret', claims);
    const [body, sig] = token.split('.') as [string, string];
    const other = signLink('s3cret', { ...claims, action: 'resolve' }).split('.')[0] as string;
    for (const bad of [signLink('other', claims), `${other}.${sig}`, `${body}.${sig.slice(0, -2)}AA`, `${body}`, '', 'a.b.c', `${Buffer.from('[').toString('base64url')}.${sig}`]) {
      assert.deepEqual(verifyLink('s3cret', bad, 0), { ok: false, reason: 'invalid' }, bad);
    }
  });
  it('verify in one spelling only: no other last character of the signature passes (a used link stays used)', () => {
    const token = signLink('s3cret', claims);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const passing = [...alphabet].map((c) => token.slice(0, -1) + c).filter((t) => verifyLink('s3cret', t, 0).ok);
    assert.deepEqual(passing, [token]);
  });
  it('are stored by hash only', () => {
    assert.match(linkHash('x'), /^[0-9a-f]{64}$/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EMPTY_ALLOW_LIST, parseAllowList } from '../../src/infra/outbound.ts';
import { planOf, ruleProblems, type ContactStep, type PlannedMethod } from '../../src/modules/contacts/contacts-fns.ts';
import type { NotificationRule } from '../../src/modules/contacts/contacts-schemas.ts';
import { channelOf, CHANNELS } from '../../src/modules/notifications/channels/registry.ts';
import { catalogueFields, keepSecrets, maskTarget, schemaProblems, targetProblems } from '../../src/modules/notifications/channels/target-fns.ts';

const MASK = '********';
const email: PlannedMethod = { id: 'cm_email', type: 'email', target: { to: 'mia@pager.test' } };
const ntfy: PlannedMethod = { id: 'cm_ntfy', type: 'ntfy', target: { serverUrl: 'https://ntfy.example.com', topic: 'mia', token: 'tk' } };
const slack: PlannedMethod = { id: 'cm_slack', type: 'slack', target: { webhookUrl: 'https://hooks.slack.com/x' } };
const step = (afterMinutes: number, m: PlannedMethod): ContactStep => ({ afterMinutes, channel: m.type, target: m.target });
const rule = (m: PlannedMethod | string, afterMinutes: number): NotificationRule => ({ contactMethodId: typeof m === 'string' ? m : m.id, afterMinutes });

describe('the paging plan of a member', () => {
  const cases: Array<[string, PlannedMethod[], NotificationRule[], ContactStep[]]> = [
    ['no method: email at the account address, at once', [], [], [{ afterMinutes: 0, channel: 'email', target: { to: 'account@acme.test' } }]],
    ['no method, whatever the rules say', [], [rule('cm_gone', 5)], [{ afterMinutes: 0, channel: 'email', target: { to: 'account@acme.test' } }]],
    ['methods, no rules: every method at once, in the order added', [ntfy, email, slack], [], [step(0, ntfy), step(0, email), step(0, slack)]],
    ['"immediately by ntfy, after 3 minutes by email"', [email, ntfy], [rule(ntfy, 0), rule(email, 3)], [step(0, ntfy), step(3, email)]],
    ['sorted by delay whatever the rules\' order', [email, ntfy, slack], [rule(email, 15), rule(slack, 5), rule(ntfy, 0)], [step(0, ntfy), step(5, slack), step(15, email)]],
    ['equal delays keep the member\'s order', [email, ntfy, slack], [rule(slack, 2), rule(email, 2), rule(ntfy, 2)], [step(2, slack), step(2, email), step(2, ntfy)]],
    ['one method at several delays', [ntfy], [rule(ntfy, 10), rule(ntfy, 0)], [step(0, ntfy), step(10, ntfy)]],
    ['methods left out of the rules are not paged', [email, ntfy], [rule(email, 1)], [step(1, email)]],
    ['a rule whose method is gone is skipped', [email, ntfy], [rule('cm_gone', 0), rule(ntfy, 4)], [step(4, ntfy)]],
    ['no rule naming a method still there: every method at once', [email, ntfy], [rule('cm_gone', 0)], [step(0, email), step(0, ntfy)]],
    ['the longest delay', [email], [rule(email, 1440)], [step(1440, email)]],
  ];
  for (const [name, methods, rules, expected] of cases) {
    it(name, () => assert.deepEqual(planOf('account@acme.test', methods, rules), expected));
  }

  it('carries the secrets (the plan is internal)', () => {
    assert.deepEqual(planOf('a@b.test', [ntfy], []), [{ afterMinutes: 0, channel: 'ntfy', target: { serverUrl: 'https://ntfy.example.com', topic: 'mia', token: 'tk' } }]);
  });
});

describe('channel targets, from each channel\'s declaration', () => {
  const webhook = channelOf('webhook');
  it('checks URL fields with the outbound guard: scheme, literal private addresses (unless allowed), credentials', () => {
    const cases: Array<[string, Record<string, string>, string | null]> = [
      ['public https', { url: 'https://hooks.example.com/x' }, null],
      ['ftp', { url: 'ftp://hooks.example.com/x' }, 'must use http or https'],
      ['loopback', { url: 'http://127.0.0.1:8080/x' }, 'is refused: 127.0.0.1 is a loopback address'],
      ['private', { url: 'http://10.0.0.5/x' }, 'is refused: 10.0.0.5 is a private address'],
      ['credentials', { url: 'https://u:p@hooks.example.com/x' }, 'must not carry credentials'],
      ['garbage', { url: 'hooks' }, 'is not valid'],
    ];
    for (const [name, target, message] of cases) {
      assert.deepEqual(targetProblems(webhook, target, EMPTY_ALLOW_LIST), message === null ? [] : [{ path: '/target/url', message }], name);
    }
    assert.deepEqual(targetProblems(webhook, { url: 'http://10.0.0.5/x' }, parseAllowList('10.0.0.0/8')), [], 'OUTBOUND_ALLOW permits it');
    assert.deepEqual(targetProblems(channelOf('ntfy'), { serverUrl: 'http://[::1]/', topic: 't' }, EMPTY_ALLOW_LIST).map((e) => e.path), ['/target/serverUrl']);
    assert.deepEqual(targetProblems(channelOf('email'), { to: 'a@b.test' }, EMPTY_ALLOW_LIST), []);
    assert.deepEqual(targetProblems(webhook, { url: 'https://h.example.com', secret: 'short' }, EMPTY_ALLOW_LIST).map((e) => e.path), ['/target/secret']);
    assert.deepEqual(targetProblems(webhook, { url: 'https://h.example.com', secret: MASK }, EMPTY_ALLOW_LIST), [], 'the mask is settled by keepSecrets');
  });

  it('reports schema problems at the field\'s path: missing, unknown, malformed', () => {
    assert.deepEqual(schemaProblems(channelOf('email'), { webhookUrl: 'https://x.test' }, '/t').map((e) => e.path).sort(), ['/t/to', '/t/webhookUrl']);
    assert.deepEqual(schemaProblems(channelOf('email'), { to: 'not an address' }, '/t').map((e) => e.path), ['/t/to']);
    assert.deepEqual(schemaProblems(channelOf('ntfy'), { serverUrl: 'https://n.test', topic: 'bad topic!' }, '/t').map((e) => e.path), ['/t/topic']);
    assert.deepEqual(schemaProblems(channelOf('email'), 'x', '/t'), [{ path: '/t', message: 'must be an object' }]);
  });

  it('masks secrets in what is shown, and keeps the stored one when the mask comes back for the same target', () => {
    assert.deepEqual(maskTarget(channelOf('ntfy'), ntfy.target), { serverUrl: 'https://ntfy.example.com', topic: 'mia', token: MASK });
    assert.deepEqual(maskTarget(webhook, { url: 'https://h.example.com' }), { url: 'https://h.example.com' }, 'no secret, no mask');
    assert.deepEqual(maskTarget(channelOf('slack'), slack.target), slack.target);
    const stored = { url: 'https://h.example.com', secret: 'the-stored-secret-0123' };
    assert.deepEqual(keepSecrets(webhook, { url: 'https://h.example.com', secret: MASK }, [stored]), { ok: true, target: stored });
    assert.deepEqual(keepSecrets(webhook, { url: 'https://h.example.com', secret: 'a-brand-new-secret-99' }, [stored]), { ok: true, target: { url: 'https://h.example.com', secret: 'a-brand-new-secret-99' } });
    assert.deepEqual(keepSecrets(webhook, { url: 'https://h.example.com' }, [stored]), { ok: true, target: { url: 'https://h.example.com' } }, 'left out: removed');
    const moved = keepSecrets(webhook, { url: 'https://elsewhere.example.com', secret: MASK }, [stored]);
    assert.deepEqual(!moved.ok && moved.errors.map((e) => e.path), ['/target/secret'], 'a secret is not carried to another URL');
    const refused = keepSecrets(channelOf('ntfy'), { serverUrl: 'https://n.example.com', topic: 't', token: MASK }, []);
    assert.deepEqual(!refused.ok && refused.errors.map((e) => e.path), ['/target/token']);
  });

  it('labels a method by what it reaches, and describes each field for the forms', () => {
    assert.equal(channelOf('email').name(email.target), 'mia@pager.test');
    assert.equal(channelOf('ntfy').name(ntfy.target), 'ntfy mia');
    assert.equal(channelOf('slack').name(slack.target), 'Slack hooks.slack.com');
    assert.deepEqual(catalogueFields(webhook).map((f) => [f.name, f.required, f.secret, f.url]), [['url', true, false, true], ['secret', false, true, false]]);
    for (const [type, c] of Object.entries(CHANNELS)) {
      for (const f of catalogueFields(c)) assert.ok(f.label.length > 0 && f.hint.length > 0, `${type}.${f.name} has a label and a hint`);
    }
  });
});

describe('notification rules', () => {
  it('names each rule whose method is not the member\'s, and exact repeats', () => {
    const mine = new Set(['cm_a', 'cm_b']);
    assert.deepEqual(ruleProblems([rule('cm_a', 0), rule('cm_b', 3), rule('cm_a', 10)], mine), []);
    assert.deepEqual(ruleProblems([rule('cm_a', 0), rule('cm_x', 3), rule('cm_a', 0)], mine), [
      { path: '/rules/1/contactMethodId', message: 'is not one of your contact methods' },
      { path: '/rules/2', message: 'is listed twice (same method, same minutes)' },
    ]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readCreate } from '../../src/modules/inbound/opsgenie-fns.ts';
import { readEvent } from '../../src/modules/inbound/pagerduty-fns.ts';

const trigger = (extra: Record<string, unknown>, payload: Record<string, unknown> = {}) =>
  ({ routing_key: 'k', event_action: 'trigger', dedup_key: 'd', ...extra, payload: { summary: 's', source: 'src', severity: 'error', ...payload } });
const alertOf = (r: ReturnType<typeof readEvent>) => {
  assert.ok(r.ok && r.event.action === 'trigger', JSON.stringify(r));
  return r.event.alert as { severity: string; description: string | null; labels: Record<string, string>; annotations: Record<string, string> };
};

describe('PagerDuty events as alerts', () => {
  it('severities map critical→critical, error→high, warning→medium, info→info', () => {
    const of = (severity: string) => alertOf(readEvent(trigger({}, { severity }), () => 'x')).severity;
    assert.deepEqual(['critical', 'error', 'warning', 'info'].map(of), ['critical', 'high', 'medium', 'info']);
  });

  it('custom_details: every entry in the description, only short one-line scalars as labels, never past the label limits', () => {
    const details: Record<string, unknown> = { nested: { a: [1, 2] }, firing: 'line 1\nline 2', long: 'x'.repeat(300), ok: true };
    for (let i = 0; i < 100; i++) details[`k${i}`] = `v${i}`;
    const a = alertOf(readEvent(trigger({}, { component: 'db', custom_details: details }), () => 'x'));
    assert.equal(Object.keys(a.labels).length, 64, 'at most 64 labels; the event is still taken');
    assert.equal(a.labels.component, 'db');
    assert.equal(a.labels.ok, 'true');
    for (const k of ['nested', 'firing', 'long']) assert.equal(a.labels[k], undefined, k);
    assert.match(a.description ?? '', /^nested: \n\{\n {2}"a": \[/);
    assert.match(a.description ?? '', /\nfiring: \nline 1\nline 2\n/);
    assert.match(a.description ?? '', /\nk99: v99$/);
  });

  it('links and images: http(s) only, named by their text, a repeated name kept as "name (2)"', () => {
    const a = alertOf(readEvent(trigger({
      links: [{ href: 'javascript:alert(1)', text: 'evil' }, { href: 'https://a.test/1', text: 'Runbook' }, { href: 'https://a.test/2', text: 'Runbook' }, { href: 'http://b.test' }, 'junk'],
      images: [{ src: 'data:image/png;base64,AA' }, { src: 'https://c.test/i.png' }],
      client_url: 'file:///etc/passwd',
    }), () => 'x'));
    assert.deepEqual({ ...a.annotations }, { Runbook: 'https://a.test/1', 'Runbook (2)': 'https://a.test/2', link: 'http://b.test', image: 'https://c.test/i.png' });
  });

  it('acknowledge and resolve need only the dedup_key; a trigger without one gets a new one', () => {
    assert.deepEqual(readEvent({ event_action: 'resolve', dedup_key: 'a', payload: 'ignored' }, () => 'x'), { ok: true, event: { action: 'resolve', dedupKey: 'a' } });
    const r = readEvent(trigger({ dedup_key: '' }), () => 'generated');
    assert.ok(r.ok && r.event.dedupKey === 'generated' && r.event.action === 'trigger' && r.event.alert.fingerprint === 'generated');
  });
});

describe('Opsgenie creates as alerts', () => {
  const create = (body: Record<string, unknown>) => {
    const r = readCreate({ message: 'm', ...body }, () => 'new-alias', '10.0.0.1');
    assert.ok(r.ok, JSON.stringify(r));
    return r.value.alert as { labels: Record<string, string>; annotations: Record<string, string>; source: string };
  };

  it('tags: all of them in label "tags", a key:value tag also as its own label; details win over tags', () => {
    const a = create({ tags: ['env:prod', 'Critical', 'http://x.test/y', 'team:db'], details: { team: 'web' } });
    assert.deepEqual({ ...a.labels }, { team: 'web', env: 'prod', tags: 'env:prod,Critical,http://x.test/y,team:db' });
  });

  it('names the field of every broken rule', () => {
    const r = readCreate({ message: 'm', alias: 5, tags: 'a,b', responders: [{ type: 'robot' }], details: [] }, () => 'x', 'ip');
    assert.ok(!r.ok);
    assert.deepEqual(r.errors.map((e) => e.path), ['/alias', '/tags', '/responders/0/type', '/details']);
  });
});

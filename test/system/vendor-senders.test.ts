import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { describeWithAlertmanager, startAlertmanager, type Alertmanager, type PostableAlert } from '../support/alertmanager.ts';
import { createOrg, ROOT, startServer, type CreatedOrg, type ServerProcess } from '../support/process.ts';
import { createTestStore, type StoreKind, type TestStore } from '../support/stores.ts';

/**
 * A real Prometheus Alertmanager paging AlertFlow through its `pagerduty_configs` and `opsgenie_configs`, configured
 * with the receivers block of docs/senders.md as written (only its four values filled in), plus the same Opsgenie
 * receiver without `update_alerts`: an alert fires, its group grows, then resolves; each integration shows one alert
 * going from firing to resolved.
 */
const DEADLINE_MS = 20_000;

/** The YAML block of docs/senders.md that configures both receivers. */
function documentedReceivers(): string {
  const doc = readFileSync(path.join(ROOT, 'docs/senders.md'), 'utf8');
  const block = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string).find((b) => b.includes('pagerduty_configs:') && b.includes('opsgenie_configs:'));
  assert.ok(block, 'docs/senders.md has the Alertmanager receivers block');
  return block;
}

interface Ctx {
  store: TestStore;
  server: ServerProcess;
  org: CreatedOrg;
  am: Alertmanager;
  /** Integration ids: the PagerDuty one, the Opsgenie one with update_alerts, the Opsgenie one without. */
  pd: string;
  og: string;
  plain: string;
}

function suite(kind: StoreKind): void {
  const x = {} as Ctx;

  before(async () => {
    x.store = await createTestStore(kind);
    x.server = await startServer({ DATABASE_URL: x.store.url });
    x.org = await createOrg(x.store.url);
    const create = async (name: string) => {
      const r = await x.server.request('POST', '/api/v1/integrations', { key: x.org.apiKey, body: { name } });
      assert.equal(r.status, 201, r.raw);
      return r.body.data as Record<string, string>;
    };
    const [pd, og, plain] = [await create('Alertmanager (PagerDuty)'), await create('Alertmanager (Opsgenie)'), await create('Alertmanager (Opsgenie, no updates)')];
    x.pd = pd.id as string;
    x.og = og.id as string;
    x.plain = plain.id as string;
    // The server's BASE_URL is not the address it listens on here: the paths are the integration's, the host the server's.
    const at = (url: string) => `${x.server.url}${new URL(url).pathname}`;
    const receivers = documentedReceivers()
      .replace('$PAGERDUTY_URL', at(pd.pagerdutyUrl as string))
      .replace('$ROUTING_KEY', pd.routingKey as string)
      .replace('$OPSGENIE_API_URL', at(og.opsgenieApiUrl as string))
      .replace('$GENIE_KEY', og.genieKey as string);
    const config = [
      'route:',
      '  receiver: alertflow-pagerduty',
      '  group_by: [alertname]',
      '  group_wait: 1s',
      '  group_interval: 1s',
      '  repeat_interval: 4h',
      '  routes:',
      // Each route groups by other labels, so that each receiver's key differs: one organization holds one open
      // alert per key, and the same key from two integrations would be one alert (docs/senders.md).
      '    - { receiver: alertflow-pagerduty, continue: true }',
      '    - { receiver: alertflow-opsgenie, group_by: [alertname, severity], continue: true }',
      '    - { receiver: alertflow-opsgenie-plain, group_by: [alertname, env] }',
      receivers.trimEnd(),
      '  - name: alertflow-opsgenie-plain',
      '    opsgenie_configs:',
      `      - api_url: ${at(plain.opsgenieApiUrl as string)}`,
      `        api_key: ${plain.genieKey as string}`,
      '',
    ].join('\n');
    x.am = await startAlertmanager({ config });
  });

  after(async () => {
    try {
      await x.am?.stop();
    } finally {
      try {
        await x.server?.stop();
      } finally {
        await x.store?.drop();
      }
    }
  });

  const alertsOf = async (integrationId: string): Promise<any[]> => {
    const r = await x.server.request('GET', `/api/v1/alerts?integrationId=${integrationId}`, { key: x.org.apiKey });
    assert.equal(r.status, 200, r.raw);
    return r.body.data as any[];
  };
  /** Polls the three integrations' alerts until `done` holds; on the deadline, fails with what was stored and both logs. */
  const waitFor = async (what: string, done: (a: { pd: any[]; og: any[]; plain: any[] }) => boolean) => {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const now = { pd: await alertsOf(x.pd), og: await alertsOf(x.og), plain: await alertsOf(x.plain) };
      if (done(now)) return now;
      if (Date.now() > deadline) {
        const brief = (as: any[]) => as.map((a) => ({ title: a.title, status: a.status, occurrences: a.occurrences }));
        assert.fail(`not within ${DEADLINE_MS} ms: ${what}\nstored: ${JSON.stringify({ pd: brief(now.pd), og: brief(now.og), plain: brief(now.plain) })}\n` +
          `--- AlertFlow log (tail) ---\n${x.server.output.trimEnd().split('\n').slice(-20).join('\n')}\n--- Alertmanager log (tail) ---\n${x.am.tail()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  };
  const one = (as: any[], what: string) => {
    assert.equal(as.length, 1, `${what}: one alert for the one group`);
    return as[0];
  };

  const first: PostableAlert = { labels: { alertname: 'DiskAlmostFull', instance: 'db1:9100', severity: 'critical', env: 'prod' }, annotations: { summary: 'Disk almost full on db1' } };
  const second: PostableAlert = { labels: { alertname: 'DiskAlmostFull', instance: 'db2:9100', severity: 'critical', env: 'prod' }, annotations: { summary: 'Disk almost full on db2' } };

  it('fires: each receiver opens one alert, in the integration its key names', async () => {
    first.startsAt = new Date().toISOString();
    await x.am.push([first]);
    const now = await waitFor('an alert in each integration', (a) => a.pd.length > 0 && a.og.length > 0 && a.plain.length > 0);
    const pd = one(now.pd, 'PagerDuty');
    assert.equal(pd.status, 'firing');
    assert.match(pd.title, /^\[FIRING:1\] DiskAlmostFull/);
    assert.equal(pd.severity, 'high', 'pagerduty_configs sends severity "error" by default');
    assert.equal(pd.source, 'Alertmanager');
    const og = one(now.og, 'Opsgenie');
    assert.equal(og.status, 'firing');
    assert.match(og.title, /^\[FIRING:1\] DiskAlmostFull/);
    assert.equal(og.severity, 'medium', 'no priority: Opsgenie\'s default P3');
    assert.deepEqual({ alertname: og.labels.alertname, severity: og.labels.severity, instance: og.labels.instance },
      { alertname: 'DiskAlmostFull', severity: 'critical', instance: 'db1:9100' }, 'the common labels, as labels');
    assert.match(og.fingerprint, /^[0-9a-f]{64}$/, 'keyed by a hash of Alertmanager\'s group key');
    assert.equal(pd.fingerprint.length, 64);
    assert.equal(one(now.plain, 'Opsgenie without updates').status, 'firing');
  });

  it('the group grows: sent again, one alert each; only update_alerts takes the new message', async () => {
    second.startsAt = new Date().toISOString();
    await x.am.push([first, second]);
    const now = await waitFor('the grown group sent again', (a) =>
      a.pd[0]?.occurrences === 2 && a.og[0]?.occurrences === 2 && a.plain[0]?.occurrences === 2 && /^\[FIRING:2\]/.test(a.og[0]?.title));
    assert.match(one(now.og, 'Opsgenie').title, /^\[FIRING:2\] DiskAlmostFull/);
    assert.match(one(now.plain, 'Opsgenie without updates').title, /^\[FIRING:1\] DiskAlmostFull/, 'without update_alerts the title stays');
    assert.match(one(now.pd, 'PagerDuty').title, /^\[FIRING:1\] DiskAlmostFull/, 'a PagerDuty trigger for an open alert only counts');
  });

  it('resolves: each alert is resolved by its integration', async () => {
    const endsAt = new Date(Math.max(Date.now() - 100, Date.parse(second.startsAt as string) + 1)).toISOString();
    await x.am.push([{ ...first, endsAt }, { ...second, endsAt }]);
    const now = await waitFor('the three alerts resolved', (a) => [a.pd, a.og, a.plain].every((as) => as[0]?.status === 'resolved'));
    for (const [what, as, id] of [['PagerDuty', now.pd, x.pd], ['Opsgenie', now.og, x.og], ['Opsgenie without updates', now.plain, x.plain]] as const) {
      const a = one(as, what);
      assert.deepEqual(a.resolvedBy, { type: 'integration', id }, what);
    }
  });
}

describeWithAlertmanager('a real Prometheus Alertmanager paging AlertFlow as PagerDuty and as Opsgenie', suite);

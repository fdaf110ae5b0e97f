import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeWithAlertmanager, startAlertmanager, type Alertmanager, type PostableAlert } from '../support/alertmanager.ts';
import { createOrg, startServer, type CreatedOrg, type ServerProcess } from '../support/process.ts';
import { createTestStore, type StoreKind, type TestStore } from '../support/stores.ts';

/**
 * A real sender: Prometheus Alertmanager posts its webhook to an integration with the `alertmanager`
 * preset (contract §4) on a real AlertFlow process. Alerts are pushed to Alertmanager's own API as
 * Prometheus would; what AlertFlow stores is read back through the REST API, polled with a deadline.
 *
 * The route groups by alertname with 1 s group wait and interval, so a change reaches AlertFlow about a
 * second later, and a group is re-sent whole (its unchanged alerts too) whenever one of its alerts changes:
 * that is how a real Alertmanager repeats alerts, and AlertFlow must deduplicate them.
 */

const DEADLINE_MS = 20_000;

interface Case {
  alert: PostableAlert;
  /** What AlertFlow must store (besides labels and annotations, which are stored whole, with generatorURL). */
  title: string;
  severity: string;
  description: string | null;
}

/** Seven alerts in six groups, covering every rule of the preset's title and severity mapping. */
function cases(): Record<string, Case> {
  const gen = 'http://prometheus.test/graph?g0.expr=up';
  const c = (labels: Record<string, string>, annotations: Record<string, string>, title: string, severity: string, description: string | null = null): Case =>
    ({ alert: { labels, annotations, generatorURL: gen }, title, severity, description });
  return {
    diskDb1: c({ alertname: 'DiskAlmostFull', instance: 'db1:9100', job: 'node', env: 'prod', severity: 'critical' },
      { summary: 'Disk almost full on db1', description: 'Only 3% of /var left', runbook_url: 'https://runbooks.test/disk' },
      'Disk almost full on db1', 'critical', 'Only 3% of /var left'),
    // No summary: the title is the alertname. "Warning" (any case) is medium.
    diskDb2: c({ alertname: 'DiskAlmostFull', instance: 'db2:9100', job: 'node', env: 'prod', severity: 'Warning' },
      { description: 'Only 9% of /var left' }, 'DiskAlmostFull', 'medium', 'Only 9% of /var left'),
    // An unknown severity is high.
    latency: c({ alertname: 'HighLatency', service: 'api', severity: 'page' }, { summary: 'p99 latency above 2 s' }, 'p99 latency above 2 s', 'high'),
    // No severity, no annotations at all.
    heartbeat: c({ alertname: 'Heartbeat' }, {}, 'Heartbeat', 'high'),
    backup: c({ alertname: 'BackupFailed', severity: 'ERROR' }, { summary: 'Nightly backup failed' }, 'Nightly backup failed', 'high'),
    certs: c({ alertname: 'CertExpiring', severity: 'info' }, { summary: 'Certificate expires in 20 days' }, 'Certificate expires in 20 days', 'info'),
    queue: c({ alertname: 'QueueBacklog', severity: 'LOW' }, { summary: 'Queue backlog growing' }, 'Queue backlog growing', 'low'),
  };
}

/** Joins the DiskAlmostFull group later: Alertmanager then re-sends the group's two earlier alerts with it. */
function lateCase(): Case {
  return {
    alert: {
      labels: { alertname: 'DiskAlmostFull', instance: 'db3:9100', job: 'node', env: 'staging', severity: 'high' },
      annotations: { summary: 'Disk almost full on db3' },
    },
    title: 'Disk almost full on db3',
    severity: 'high',
    description: null,
  };
}

const labelKey = (labels: Record<string, string>): string =>
  JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));

interface Ctx {
  store: TestStore;
  server: ServerProcess;
  org: CreatedOrg;
  integrationId: string;
  am: Alertmanager;
}

function alertmanagerSuite(kind: StoreKind): void {
  const x = {} as Ctx;
  const all = cases();
  const late = lateCase();
  /**
   * Alerts start when they are first pushed. Alertmanager sends a new group at once if its first alert
   * started more than group_wait ago, possibly before the rest of the same push joined it, and then the
   * group again a group_interval later; with a fresh start time it waits group_wait (1 s) and sends the
   * whole group once, so the occurrence counts below are exact.
   */
  const start = (cs: Case[]): void => {
    const startsAt = new Date().toISOString();
    for (const c of cs) c.alert.startsAt = startsAt;
  };
  /** name → the fingerprint Alertmanager computed for it (read from Alertmanager's API). */
  const fp: Record<string, string> = {};

  before(async () => {
    x.store = await createTestStore(kind);
    x.server = await startServer({ DATABASE_URL: x.store.url });
    x.org = await createOrg(x.store.url);
    const integ = await x.server.request('POST', '/api/v1/integrations', {
      key: x.org.apiKey, body: { name: 'Alertmanager', preset: 'alertmanager' },
    });
    assert.equal(integ.status, 201, `integration with preset alertmanager: ${integ.raw}\n${x.server.output.trimEnd().split('\n').slice(-5).join('\n')}`);
    assert.equal(integ.body.data.preset, 'alertmanager');
    x.integrationId = integ.body.data.id;
    x.am = await startAlertmanager({ webhookUrl: `${x.server.url}/api/inbound/webhook/${integ.body.data.token as string}` });
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

  /** Every alert of the integration (one page of 100 is plenty here). */
  const list = async (): Promise<any[]> => {
    const r = await x.server.request('GET', `/api/v1/alerts?integrationId=${x.integrationId}&limit=100`, { key: x.org.apiKey });
    assert.equal(r.status, 200, r.raw);
    return r.body.data as any[];
  };

  /** Polls the alert list until `done` holds; on the deadline, fails with what was stored and both logs. */
  const waitFor = async (what: string, done: (alerts: any[]) => boolean): Promise<any[]> => {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const alerts = await list();
      if (done(alerts)) return alerts;
      if (Date.now() > deadline) {
        const stored = alerts.map((a) => ({ fingerprint: a.fingerprint, title: a.title, severity: a.severity, status: a.status, occurrences: a.occurrences }));
        const serverTail = x.server.output.trimEnd().split('\n').slice(-20).join('\n');
        assert.fail(`not within ${DEADLINE_MS} ms: ${what}\nstored: ${JSON.stringify(stored, null, 1)}\n` +
          `--- AlertFlow log (tail) ---\n${serverTail}\n--- Alertmanager log (tail) ---\n${x.am.tail()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  };

  /** Reads the fingerprints Alertmanager computed for the given cases. */
  const learnFingerprints = async (named: Record<string, Case>): Promise<void> => {
    const held = new Map((await x.am.alerts()).map((a) => [labelKey(a.labels), a.fingerprint]));
    for (const [name, c] of Object.entries(named)) {
      const f = held.get(labelKey(c.alert.labels));
      assert.ok(f, `Alertmanager holds ${name}`);
      fp[name] = f;
    }
  };

  const byFingerprint = (alerts: any[], name: string): any[] => alerts.filter((a) => a.fingerprint === fp[name]);
  const one = (alerts: any[], name: string): any => {
    const found = byFingerprint(alerts, name);
    assert.equal(found.length, 1, `exactly one alert for ${name} (fingerprint ${fp[name]})`);
    return found[0];
  };

  const assertStored = (a: any, c: Case, name: string): void => {
    assert.equal(a.title, c.title, `${name}: title`);
    assert.equal(a.severity, c.severity, `${name}: severity`);
    assert.equal(a.description, c.description, `${name}: description`);
    assert.equal(a.source, 'alertmanager', `${name}: source`);
    assert.equal(a.fingerprint, fp[name], `${name}: Alertmanager's fingerprint`);
    assert.deepEqual({ ...a.labels }, c.alert.labels, `${name}: labels, whole`);
    // Its annotations whole, and its generatorURL beside them (the preset keeps the sender's link).
    assert.deepEqual({ ...a.annotations }, { ...c.alert.annotations, ...(c.alert.generatorURL !== undefined && { generatorURL: c.alert.generatorURL }) }, `${name}: annotations, whole`);
    assert.equal(a.integrationId, x.integrationId, `${name}: integrationId`);
  };

  it('stores each alert Alertmanager sends once, with the preset\'s fields', async () => {
    start(Object.values(all));
    await x.am.push(Object.values(all).map((c) => c.alert));
    await learnFingerprints(all);
    const names = Object.keys(all);

    const alerts = await waitFor(`all ${names.length} alerts stored`, (as) => names.every((n) => byFingerprint(as, n).length > 0));
    assert.equal(alerts.length, names.length, 'one AlertFlow alert per Alertmanager alert, nothing else');
    for (const [name, c] of Object.entries(all)) {
      const a = one(alerts, name);
      assertStored(a, c, name);
      assert.equal(a.status, 'firing', `${name}: status`);
      assert.equal(a.occurrences, 1, `${name}: sent once`);
      assert.equal(a.resolvedAt, null);
    }
  });

  it('deduplicates the alerts Alertmanager sends again: one alert per fingerprint, occurrences grow', async () => {
    // Prometheus re-sends every firing alert on each evaluation; a new alert in the DiskAlmostFull group
    // makes Alertmanager notify that whole group again, so diskDb1 and diskDb2 arrive a second time.
    start([late]);
    await x.am.push([...Object.values(all).map((c) => c.alert), late.alert]);
    await learnFingerprints({ late });

    const alerts = await waitFor('the late alert stored and its group deduplicated', (as) =>
      byFingerprint(as, 'late').length > 0 && ['diskDb1', 'diskDb2'].every((n) => byFingerprint(as, n).some((a) => a.occurrences >= 2)));
    assert.equal(alerts.length, Object.keys(all).length + 1, 'the re-sent alerts created no new alerts');
    assertStored(one(alerts, 'late'), late, 'late');
    assert.equal(one(alerts, 'late').occurrences, 1);
    for (const name of ['diskDb1', 'diskDb2']) {
      const a = one(alerts, name);
      assert.equal(a.status, 'firing', `${name}: status unchanged`);
      assert.equal(a.occurrences, 2, `${name}: the group was sent twice`);
      assert.ok(Date.parse(a.lastSeenAt) >= Date.parse(a.createdAt), `${name}: lastSeenAt`);
      assertStored(a, all[name] as Case, name);
    }
    for (const name of ['latency', 'heartbeat', 'backup', 'certs', 'queue']) {
      assert.equal(one(alerts, name).occurrences, 1, `${name}: its unchanged group was not re-sent`);
    }
  });

  it('resolves the alerts Alertmanager sends as resolved, and only those', async () => {
    // Prometheus resolves an alert by sending it with an end time that has passed.
    const resolve = ['diskDb1', 'late', 'latency'];
    const cs: Record<string, Case> = { ...all, late };
    // Alertmanager refuses an end before the start: the late alert may have started less than 100 ms ago.
    const latestStart = Math.max(...resolve.map((n) => Date.parse((cs[n] as Case).alert.startsAt ?? '')));
    const endsAt = new Date(Math.max(Date.now() - 100, latestStart + 1)).toISOString();
    await x.am.push(resolve.map((n) => ({ ...(cs[n] as Case).alert, endsAt })));

    const alerts = await waitFor(`${resolve.join(', ')} resolved`, (as) =>
      resolve.every((n) => byFingerprint(as, n).some((a) => a.status === 'resolved')));
    assert.equal(alerts.length, Object.keys(cs).length, 'resolving created no alerts');
    for (const name of resolve) {
      const a = one(alerts, name);
      assert.equal(a.status, 'resolved', `${name}: status`);
      assert.ok(a.resolvedAt !== null && Date.parse(a.resolvedAt) >= Date.parse(a.createdAt), `${name}: resolvedAt`);
      assert.deepEqual(a.resolvedBy, { type: 'integration', id: x.integrationId }, `${name}: resolvedBy`);
    }
    // diskDb2 shares its group with two resolved alerts (the webhook's top-level status stays "firing");
    // each element's own status counts, so it stays open.
    for (const name of ['diskDb2', 'heartbeat', 'backup', 'certs', 'queue']) {
      const a = one(alerts, name);
      assert.equal(a.status, 'firing', `${name}: still firing`);
      assert.equal(a.resolvedAt, null, `${name}: not resolved`);
    }
  });
}

describeWithAlertmanager('a real Prometheus Alertmanager posting to an alertmanager-preset integration', alertmanagerSuite);

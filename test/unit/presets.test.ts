import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkMapping } from '../../src/modules/ingest/mapping-fns.ts';
import { normalizePayload } from '../../src/modules/ingest/normalize-fns.ts';
import { PRESETS } from '../../src/modules/ingest/presets.ts';

type Expected = Array<{ title: string; severity: string | null; status: string; fingerprint?: string; source: string; labels?: Record<string, string>; annotations?: Record<string, string>; description?: string }>;

/** What each preset makes of its tool's sample payload. */
const expected: Record<string, Expected> = {
  standard: [{ title: 'Disk almost full on db-1', severity: 'high', status: 'firing', source: 'cron-check', labels: { host: 'db-1', client: 'acme' } }],
  alertmanager: [
    { title: 'High 5xx rate on api-1', severity: 'critical', status: 'firing', fingerprint: 'c4f6a3d2b1e09f87', source: 'alertmanager', description: '5xx responses are 12% of traffic over the last 5 minutes.', labels: { alertname: 'HighErrorRate', job: 'api', instance: 'api-1:9100', severity: 'critical', client: 'acme' }, annotations: { runbook_url: 'https://runbooks.example.com/high-error-rate', generatorURL: 'http://prometheus.example.com:9090/graph?g0.expr=rate%28http_5xx%5B5m%5D%29' } },
    // No summary: the title falls back to the alert name; `warning` is medium.
    { title: 'HighErrorRate', severity: 'medium', status: 'resolved', fingerprint: '5e2d1c0b9a887766', source: 'alertmanager', description: '5xx responses are back under 1%.' },
  ],
  grafana: [{ title: 'Disk /var on db-1 is 93% full', severity: 'high', status: 'firing', fingerprint: '0a1b2c3d4e5f6071', source: 'grafana', annotations: { summary: 'Disk /var on db-1 is 93% full', description: 'Free space is below 7% and falling.', dashboard: 'https://grafana.example.com/d/node/node-exporter?orgId=1', generatorURL: 'https://grafana.example.com/alerting/grafana/ddx8c2/view?orgId=1' } }],
  zabbix: [{ title: 'High CPU utilization (over 90% for 5m)', severity: 'medium', status: 'firing', fingerprint: '4913027', source: 'zabbix', labels: { host: 'web-3', ip: '10.0.4.13' }, annotations: { dashboard: 'https://zabbix.example.com/tr_events.php?triggerid=23456&eventid=4913027' } }],
  datadog: [{ title: '[Triggered] CPU load is high on host:i-0abc123', severity: 'high', status: 'firing', fingerprint: '2f7e1a6c9d2b4e8f', source: 'datadog', labels: { host: 'i-0abc123', tags: 'env:prod,service:checkout,monitor' } }],
  'uptime-kuma': [{ title: 'Shop front page', severity: 'high', status: 'firing', source: 'uptime-kuma', description: 'connect ECONNREFUSED 203.0.113.10:443', labels: { url: 'https://shop.example.com' } }],
  'azure-monitor': [{ title: 'WCUS-R2-Gen2 high CPU', severity: 'high', status: 'firing', source: 'azure-monitor', description: 'CPU above 90% for 15 minutes', labels: { service: 'Platform', signal: 'Metric', resource: 'wcus-r2-gen2' } }],
  newrelic: [{ title: 'Apdex score below 0.7 for checkout-service', severity: 'critical', status: 'firing', fingerprint: '0b2c8f4e-6d5a-4c1b-9e7f-3a2b1c0d9e8f', source: 'newrelic', labels: { entity: 'checkout-service', policy: 'Golden signals', condition: 'Apdex low' } }],
};

describe('presets', () => {
  it('has the contract\'s two and at least four more, each with a sample and an expectation here', () => {
    const names = PRESETS.map((p) => p.name);
    assert.ok(names.includes('alertmanager') && names.includes('grafana'));
    assert.ok(names.length >= 7);
    assert.deepEqual(names.sort(), Object.keys(expected).sort());
  });

  for (const preset of PRESETS) {
    it(`${preset.name}: its mapping is valid and turns its tool's sample into the expected alerts`, () => {
      if (preset.mapping) assert.deepEqual(checkMapping(preset.mapping), []);
      const r = normalizePayload(preset.mapping, preset.sample);
      assert.ok(r.ok, JSON.stringify(r));
      const want = expected[preset.name] as Expected;
      assert.equal(r.alerts.length, want.length);
      r.alerts.forEach((a, i) => {
        const w = want[i] as Expected[number];
        assert.equal(a.title, w.title);
        assert.equal(a.severity, w.severity);
        assert.equal(a.status, w.status);
        assert.equal(a.source, w.source);
        if (w.fingerprint) assert.equal(a.fingerprint, w.fingerprint);
        if (w.description) assert.equal(a.description, w.description);
        for (const [k, v] of Object.entries(w.labels ?? {})) assert.equal(a.labels[k], v, `labels.${k}`);
        for (const [k, v] of Object.entries(w.annotations ?? {})) assert.equal(a.annotations[k], v, `annotations.${k}`);
      });
    });
  }

  const am = PRESETS.find((p) => p.name === 'alertmanager');
  const severityOf = (labels: Record<string, string>) => {
    const r = normalizePayload(am!.mapping, { alerts: [{ status: 'firing', labels: { alertname: 'A', ...labels }, annotations: {} }] });
    assert.ok(r.ok, JSON.stringify(r));
    return r.alerts[0]?.severity;
  };
  const alertmanagerSeverities: Array<[Record<string, string>, string]> = [
    [{ severity: 'CRITICAL' }, 'critical'], [{ severity: 'High' }, 'high'], [{ severity: 'medium' }, 'medium'], [{ severity: 'low' }, 'low'],
    [{ severity: 'info' }, 'info'], [{ severity: 'error' }, 'high'], [{ severity: 'Warning' }, 'medium'], [{ severity: 'page' }, 'high'], [{}, 'high'],
  ];
  for (const [labels, want] of alertmanagerSeverities) {
    it(`alertmanager: severity label ${JSON.stringify(labels.severity ?? null)} is ${want}`, () => assert.equal(severityOf(labels), want));
  }

  // The recovery message of each tool resolves what its problem message opened: same fingerprint, status resolved.
  const recoveries: Array<[string, (s: any) => unknown]> = [
    ['alertmanager', (s) => ({ ...s, alerts: [{ ...s.alerts[0], status: 'resolved' }] })],
    ['grafana', (s) => ({ ...s, alerts: [{ ...s.alerts[0], status: 'resolved' }] })],
    ['zabbix', (s) => ({ ...s, event_value: '0', event_status: 'RESOLVED' })],
    ['datadog', (s) => ({ ...s, alert_transition: 'Recovered', title: '[Recovered] CPU load is high on host:i-0abc123' })],
    ['uptime-kuma', (s) => ({ ...s, heartbeat: { ...s.heartbeat, status: 1, msg: '200 - OK' } })],
    ['azure-monitor', (s) => ({ ...s, data: { ...s.data, essentials: { ...s.data.essentials, monitorCondition: 'Resolved' } } })],
    ['newrelic', (s) => ({ ...s, state: 'CLOSED' })],
  ];
  for (const [name, recover] of recoveries) {
    it(`${name}: the recovery payload resolves the same fingerprint`, () => {
      const preset = PRESETS.find((p) => p.name === name)!;
      const fire = normalizePayload(preset.mapping, preset.sample);
      const done = normalizePayload(preset.mapping, recover(structuredClone(preset.sample)));
      assert.ok(fire.ok && done.ok);
      assert.equal(done.alerts[0]?.status, 'resolved');
      assert.equal(done.alerts[0]?.fingerprint, fire.alerts[0]?.fingerprint);
    });
  }
});

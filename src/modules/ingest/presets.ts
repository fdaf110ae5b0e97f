import type { Mapping } from './mapping-fns.ts';

/**
 * Built-in mappings for widely used senders. Each is plain data (what a user could have typed as
 * `mapping`) plus a realistic sample of what that tool sends, which the docs and tests use.
 */
export interface Preset {
  name: string;
  title: string;
  /** How to point the tool at AlertFlow, in one or two sentences. */
  setup: string;
  mapping: Mapping | null;
  sample: Record<string, unknown>;
}

/** Prometheus Alertmanager's webhook body (version 4), as documented in its configuration reference. */
const alertmanagerSample = {
  version: '4',
  groupKey: '{}:{alertname="HighErrorRate"}',
  truncatedAlerts: 0,
  status: 'firing',
  receiver: 'alertflow',
  groupLabels: { alertname: 'HighErrorRate' },
  commonLabels: { alertname: 'HighErrorRate', job: 'api' },
  commonAnnotations: {},
  externalURL: 'http://alertmanager.example.com:9093',
  alerts: [
    {
      status: 'firing',
      labels: { alertname: 'HighErrorRate', job: 'api', instance: 'api-1:9100', severity: 'critical', client: 'acme' },
      annotations: {
        summary: 'High 5xx rate on api-1',
        description: '5xx responses are 12% of traffic over the last 5 minutes.',
        runbook_url: 'https://runbooks.example.com/high-error-rate',
      },
      startsAt: '2026-11-21T09:58:00.000Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.example.com:9090/graph?g0.expr=rate%28http_5xx%5B5m%5D%29',
      fingerprint: 'c4f6a3d2b1e09f87',
    },
    {
      status: 'resolved',
      labels: { alertname: 'HighErrorRate', job: 'api', instance: 'api-2:9100', severity: 'warning' },
      annotations: { description: '5xx responses are back under 1%.' },
      startsAt: '2026-11-21T09:40:00.000Z',
      endsAt: '2026-11-21T09:57:00.000Z',
      generatorURL: 'http://prometheus.example.com:9090/graph?g0.expr=rate%28http_5xx%5B5m%5D%29',
      fingerprint: '5e2d1c0b9a887766',
    },
  ],
};

/** Grafana alerting's webhook contact point body (Grafana 10/11). */
const grafanaSample = {
  receiver: 'alertflow',
  status: 'firing',
  orgId: 1,
  alerts: [
    {
      status: 'firing',
      labels: { alertname: 'Disk almost full', grafana_folder: 'Infra', instance: 'db-1', severity: 'high' },
      annotations: { summary: 'Disk /var on db-1 is 93% full', description: 'Free space is below 7% and falling.' },
      startsAt: '2026-11-21T09:55:00Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: 'https://grafana.example.com/alerting/grafana/ddx8c2/view?orgId=1',
      fingerprint: '0a1b2c3d4e5f6071',
      silenceURL: 'https://grafana.example.com/alerting/silence/new?alertmanager=grafana&matcher=alertname%3DDisk+almost+full',
      dashboardURL: 'https://grafana.example.com/d/node/node-exporter?orgId=1',
      panelURL: 'https://grafana.example.com/d/node/node-exporter?orgId=1&viewPanel=12',
      values: { B: 93.1, C: 1 },
      valueString: "[ var='B' labels={instance=db-1} value=93.1 ]",
    },
  ],
  groupLabels: { alertname: 'Disk almost full', grafana_folder: 'Infra' },
  commonLabels: { alertname: 'Disk almost full', grafana_folder: 'Infra', instance: 'db-1', severity: 'high' },
  commonAnnotations: { summary: 'Disk /var on db-1 is 93% full' },
  externalURL: 'https://grafana.example.com/',
  version: '1',
  groupKey: '{}/{}:{alertname="Disk almost full", grafana_folder="Infra"}',
  truncatedAlerts: 0,
  title: '[FIRING:1] Disk almost full Infra (db-1 high)',
  state: 'alerting',
  message: '**Firing**\n\nValue: B=93.1\nLabels:\n - alertname = Disk almost full\n',
};

/**
 * Zabbix webhook media type: its parameters, posted as a JSON object by the media type's script
 * (docs/senders.md, "Connect your monitoring tool", gives the parameter list and the script).
 */
const zabbixSample = {
  event_id: '4913027',
  event_name: 'High CPU utilization (over 90% for 5m)',
  event_severity: 'Average',
  event_value: '1',
  event_status: 'PROBLEM',
  event_date: '2026.11.21',
  event_time: '09:58:12',
  host_name: 'web-3',
  host_ip: '10.0.4.13',
  trigger_description: 'CPU utilization is too high. The system might be slow to respond.',
  trigger_url: '',
  event_url: 'https://zabbix.example.com/tr_events.php?triggerid=23456&eventid=4913027',
  event_tags: 'service:web, client:acme',
};

/** Datadog webhook integration with the payload template given in docs/senders.md. */
const datadogSample = {
  id: '7834560129384756123',
  title: '[Triggered] CPU load is high on host:i-0abc123',
  body: '%%%\nCPU load is above 4 on i-0abc123 for the last 10 minutes.\n@webhook-alertflow\n%%%',
  alert_transition: 'Triggered',
  alert_type: 'error',
  priority: 'P2',
  aggreg_key: '2f7e1a6c9d2b4e8f',
  alert_cycle_key: '7834560129384750000',
  hostname: 'i-0abc123',
  link: 'https://app.datadoghq.com/event/event?id=7834560129384756123',
  tags: 'env:prod,service:checkout,monitor',
  org: { id: '123456', name: 'Acme Ops' },
};

/** Uptime Kuma's webhook notification (application/json "Preset - application/json"). */
const uptimeKumaSample = {
  heartbeat: {
    monitorID: 7,
    status: 0,
    time: '2026-11-21 09:58:30.123',
    msg: 'connect ECONNREFUSED 203.0.113.10:443',
    important: true,
    duration: 60,
    timezone: 'Europe/Berlin',
    timezoneOffset: '+01:00',
    localDateTime: '2026-11-21 10:58:30',
  },
  monitor: {
    id: 7,
    name: 'Shop front page',
    description: null,
    url: 'https://shop.example.com',
    hostname: null,
    port: null,
    type: 'http',
    interval: 60,
    active: true,
  },
  msg: '[Shop front page] [🔴 Down] connect ECONNREFUSED 203.0.113.10:443',
};

/** Azure Monitor action group webhook with the common alert schema enabled. */
const azureMonitorSample = {
  schemaId: 'azureMonitorCommonAlertSchema',
  data: {
    essentials: {
      alertId: '/subscriptions/1e3ff1c0-771a-4119-a03b-be82a51e232d/providers/Microsoft.AlertsManagement/alerts/b9569717-bc32-442f-add5-83a997729330',
      alertRule: 'WCUS-R2-Gen2 high CPU',
      severity: 'Sev1',
      signalType: 'Metric',
      monitorCondition: 'Fired',
      monitoringService: 'Platform',
      alertTargetIDs: ['/subscriptions/1e3ff1c0-771a-4119-a03b-be82a51e232d/resourcegroups/pipelinealertrg/providers/microsoft.compute/virtualmachines/wcus-r2-gen2'],
      configurationItems: ['wcus-r2-gen2'],
      originAlertId: '3f2d4487-b0fc-4125-8bd5-7ad17384221e_PipeLineAlertRG_microsoft.insights_metricAlerts_WCUS-R2-Gen2_-117781227',
      firedDateTime: '2026-11-21T09:58:24.3713213Z',
      description: 'CPU above 90% for 15 minutes',
      essentialsVersion: '1.0',
      alertContextVersion: '1.0',
    },
    alertContext: {
      properties: null,
      conditionType: 'SingleResourceMultipleMetricCriteria',
      condition: {
        windowSize: 'PT15M',
        allOf: [{ metricName: 'Percentage CPU', metricNamespace: 'Microsoft.Compute/virtualMachines', operator: 'GreaterThan', threshold: '90', timeAggregation: 'Average', metricValue: 93.4 }],
      },
    },
  },
};

/** New Relic workflow webhook destination with New Relic's default payload template. */
const newRelicSample = {
  id: '0b2c8f4e-6d5a-4c1b-9e7f-3a2b1c0d9e8f',
  issueUrl: 'https://radar-api.service.newrelic.com/accounts/1234567/issues/0b2c8f4e-6d5a-4c1b-9e7f-3a2b1c0d9e8f',
  title: 'Apdex score below 0.7 for checkout-service',
  priority: 'CRITICAL',
  impactedEntities: ['checkout-service'],
  totalIncidents: 1,
  state: 'ACTIVATED',
  trigger: 'STATE_CHANGE',
  isCorrelated: false,
  createdAt: 1795168680000,
  updatedAt: 1795168680000,
  sources: ['newrelic'],
  alertPolicyNames: ['Golden signals'],
  alertConditionNames: ['Apdex low'],
  workflowName: 'Page the on-call',
};

/**
 * Alertmanager's webhook body (contract §4): one alert per element of `alerts`; the title from the summary,
 * else the alert name; the five severities pass through, `error` is high, `warning` medium, anything else high.
 */
const alertmanagerMapping = (source: string, extraFields: Record<string, string | string[]> = {}): Mapping => ({
  itemsPath: 'alerts',
  fields: {
    title: ['annotations.summary', 'labels.alertname'],
    severity: 'labels.severity',
    status: 'status',
    fingerprint: 'fingerprint',
    labels: 'labels',
    annotations: 'annotations',
    description: 'annotations.description',
    // The sender's own page of the alert (Prometheus' graph, Grafana's rule): the alert page links it.
    'annotations.generatorURL': 'generatorURL',
    ...extraFields,
  },
  severityMap: { error: 'high', warning: 'medium', '*': 'high' },
  defaults: { severity: 'high', source },
});

export const PRESETS: readonly Preset[] = [
  {
    name: 'standard',
    title: 'Standard payload',
    setup: 'POST the standard alert payload (title, severity, status, …) as JSON; no mapping needed.',
    mapping: null,
    sample: { title: 'Disk almost full on db-1', severity: 'high', source: 'cron-check', labels: { host: 'db-1', client: 'acme' } },
  },
  {
    name: 'alertmanager',
    title: 'Prometheus Alertmanager',
    setup: 'Add a receiver with `webhook_configs: [{url: <ingestUrl>, send_resolved: true}]`.',
    mapping: alertmanagerMapping('alertmanager'),
    sample: alertmanagerSample,
  },
  {
    name: 'grafana',
    title: 'Grafana alerting',
    setup: 'Create a contact point of type Webhook with the ingest URL (HTTP method POST).',
    // Grafana's webhook body is Alertmanager's, plus links to the dashboard and panel.
    mapping: alertmanagerMapping('grafana', { 'annotations.dashboard': ['dashboardURL', 'panelURL'] }),
    sample: grafanaSample,
  },
  {
    name: 'zabbix',
    title: 'Zabbix (webhook media type)',
    setup: 'Create a Webhook media type whose parameters are the fields of the sample and whose script posts them as JSON to the ingest URL.',
    mapping: {
      fields: {
        title: 'event_name',
        severity: 'event_severity',
        status: ['event_value', 'event_status'],
        fingerprint: 'event_id',
        description: 'trigger_description',
        'labels.host': 'host_name',
        'labels.ip': 'host_ip',
        'annotations.dashboard': ['event_url', 'trigger_url'],
      },
      severityMap: { Disaster: 'critical', High: 'high', Average: 'medium', Warning: 'low', Information: 'info', 'Not classified': 'info' },
      statusMap: { '1': 'firing', '0': 'resolved', PROBLEM: 'firing', RESOLVED: 'resolved', OK: 'resolved' },
      defaults: { severity: 'high', source: 'zabbix' },
    },
    sample: zabbixSample,
  },
  {
    name: 'datadog',
    title: 'Datadog (webhooks integration)',
    setup: 'Add a webhook with the ingest URL and the payload template from docs/senders.md, then mention @webhook-<name> in monitors.',
    mapping: {
      fields: {
        title: 'title',
        description: 'body',
        severity: 'priority',
        status: 'alert_transition',
        fingerprint: ['aggreg_key', 'alert_cycle_key'],
        'labels.host': 'hostname',
        'labels.tags': 'tags',
        'annotations.dashboard': 'link',
      },
      severityMap: { P1: 'critical', P2: 'high', P3: 'medium', P4: 'low', P5: 'info' },
      statusMap: { Recovered: 'resolved', '*': 'firing' },
      defaults: { severity: 'high', source: 'datadog' },
    },
    sample: datadogSample,
  },
  {
    name: 'uptime-kuma',
    title: 'Uptime Kuma',
    setup: 'Add a notification of type Webhook, body "Preset - application/json", with the ingest URL.',
    mapping: {
      // No fingerprint: the monitor's name and the source identify it, for its down and its up message alike.
      fields: {
        title: ['monitor.name', 'msg'],
        status: 'heartbeat.status',
        description: ['heartbeat.msg', 'msg'],
        'labels.url': 'monitor.url',
        'labels.host': 'monitor.hostname',
      },
      // 0 down, 1 up, 2 pending, 3 maintenance.
      statusMap: { '0': 'firing', '1': 'resolved', '2': 'firing', '3': 'resolved' },
      defaults: { severity: 'high', source: 'uptime-kuma' },
    },
    sample: uptimeKumaSample,
  },
  {
    name: 'azure-monitor',
    title: 'Azure Monitor (common alert schema)',
    setup: 'In an action group, add a Webhook action with the ingest URL and "Enable the common alert schema" on.',
    mapping: {
      fields: {
        title: 'data.essentials.alertRule',
        severity: 'data.essentials.severity',
        status: 'data.essentials.monitorCondition',
        fingerprint: 'data.essentials.alertId',
        description: 'data.essentials.description',
        'labels.service': 'data.essentials.monitoringService',
        'labels.signal': 'data.essentials.signalType',
        'labels.resource': 'data.essentials.configurationItems.0',
        'annotations.target': 'data.essentials.alertTargetIDs.0',
      },
      severityMap: { Sev0: 'critical', Sev1: 'high', Sev2: 'medium', Sev3: 'low', Sev4: 'info' },
      statusMap: { Fired: 'firing', Resolved: 'resolved' },
      defaults: { severity: 'high', source: 'azure-monitor' },
    },
    sample: azureMonitorSample,
  },
  {
    name: 'newrelic',
    title: 'New Relic (workflow webhook)',
    setup: 'Add a Webhook destination with the ingest URL and keep the default payload template in the workflow.',
    mapping: {
      fields: {
        title: 'title',
        severity: 'priority',
        status: 'state',
        fingerprint: 'id',
        'labels.entity': 'impactedEntities.0',
        'labels.policy': 'alertPolicyNames.0',
        'labels.condition': 'alertConditionNames.0',
        'annotations.dashboard': 'issueUrl',
      },
      severityMap: { CRITICAL: 'critical', HIGH: 'high', MEDIUM: 'medium', LOW: 'low' },
      statusMap: { CREATED: 'firing', ACTIVATED: 'firing', ACKNOWLEDGED: 'acknowledged', CLOSED: 'resolved' },
      defaults: { severity: 'high', source: 'newrelic' },
    },
    sample: newRelicSample,
  },
];

export const PRESET_NAMES = PRESETS.map((p) => p.name) as [string, ...string[]];

/** The mapping an integration applies: its own when set, else its preset's (null: the standard payload). */
export function effectiveMapping(preset: string, own: Mapping | null): Mapping | null {
  return own ?? PRESETS.find((p) => p.name === preset)?.mapping ?? null;
}

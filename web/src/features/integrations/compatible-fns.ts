/** What a sender that speaks PagerDuty's or Opsgenie's API needs: the integration's URLs and keys. */
export interface VendorKeys {
  pagerdutyUrl: string;
  routingKey: string;
  opsgenieApiUrl: string;
  genieKey: string;
}

/**
 * Alertmanager's receivers, line for line what docs/senders.md shows (test/unit/compatible-snippets.test.ts holds
 * them equal, and test/system/vendor-senders.test.ts runs that text in a real Alertmanager).
 */
export const ALERTMANAGER_HEADER = '# alertmanager.yml: use these receivers in your route; each pages the integration whose URL and key it holds';

export const pagerdutyReceiver = (k: VendorKeys): string => [
  '  - name: alertflow-pagerduty',
  '    pagerduty_configs:',
  `      - url: ${k.pagerdutyUrl}          # the integration's pagerdutyUrl`,
  `        routing_key: ${k.routingKey}    # its routingKey`,
  '',
].join('\n');

export const opsgenieReceiver = (k: VendorKeys): string => [
  '  - name: alertflow-opsgenie',
  '    opsgenie_configs:',
  `      - api_url: ${k.opsgenieApiUrl}   # the integration's opsgenieApiUrl`,
  `        api_key: ${k.genieKey}          # its genieKey`,
  '        update_alerts: true          # optional: keep the alert\'s title and description current',
  '',
].join('\n');

/** A receivers block for `alertmanager.yml` holding the given receivers. */
export const receiversBlock = (...receivers: string[]): string => `${ALERTMANAGER_HEADER}\nreceivers:\n${receivers.join('')}`;

/** Opsgenie's whole alerts URL, which Grafana and Zabbix ask for (they append the alias and action themselves). */
export const opsgenieAlertsUrl = (k: VendorKeys): string => `${k.opsgenieApiUrl}v2/alerts`;

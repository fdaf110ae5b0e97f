import type { ReactNode } from 'react';
import type { Integration } from '../../api/types';
import { CodeBlock } from '../../components/code-block';
import { CopyButton, CopyValue as Value } from '../../components/copy-button';
import { opsgenieAlertsUrl, opsgenieReceiver, pagerdutyReceiver, receiversBlock } from './compatible-fns';

/** A tool's settings, in the words of its own form: field → what to put there. */
function Tool({ name, children }: { name: string; children: ReactNode }) {
  return (
    <details>
      <summary>{name}</summary>
      {children}
    </details>
  );
}

function Settings({ rows }: { rows: Array<[string, string]> }) {
  return <dl className="pairs">{rows.map(([field, value]) => <div key={field}><dt>{field}</dt><dd><code className="break">{value}</code></dd></div>)}</dl>;
}

function Receiver({ text, label }: { text: string; label: string }) {
  return (
    <>
      <CodeBlock label={label} text={text} />
      <CopyButton text={text} label={`Copy ${label}`} />
    </>
  );
}

/**
 * Where a tool that pages PagerDuty or Opsgenie finds what to change: the URLs and keys of this integration, and the
 * settings of the tools docs/senders.md describes. Keys are masked for readers without integrations:write.
 */
export function CompatibleApis({ integration: i, canWrite }: { integration: Integration; canWrite: boolean }) {
  const base = i.opsgenieApiUrl.replace(/\/api\/inbound\/opsgenie\/$/, '/');
  return (
    <section className="panel" aria-labelledby="compatible-apis">
      <h2 id="compatible-apis">PagerDuty- and Opsgenie-compatible APIs</h2>
      <p>
        A tool that pages PagerDuty or Opsgenie can page this integration instead: change only its URL and key.
        {!canWrite && ' The keys are shown in full only to those who can edit integrations.'}
      </p>
      <h3>PagerDuty Events API v2</h3>
      <dl className="pairs">
        <Value label="Events URL" value={i.pagerdutyUrl} testId="pagerduty-url" copy="Copy events URL" />
        <Value label="Routing key" value={i.routingKey} testId="routing-key" copy="Copy routing key" />
      </dl>
      <Tool name="Alertmanager (pagerduty_configs)">
        <Receiver label="PagerDuty receiver" text={receiversBlock(pagerdutyReceiver(i))} />
      </Tool>
      <Tool name="Grafana (contact point of type PagerDuty)">
        <Settings rows={[['Integration Key', i.routingKey], ['URL (optional settings; Grafana 11.1 and later)', i.pagerdutyUrl]]} />
      </Tool>
      <Tool name="Uptime Kuma (notification of type PagerDuty)">
        <Settings rows={[['Integration URL', i.pagerdutyUrl], ['Integration Key', i.routingKey], ['Auto resolve or acknowledged', 'auto resolve']]} />
      </Tool>
      <h3>Opsgenie Alert API</h3>
      <dl className="pairs">
        <Value label="API URL" value={i.opsgenieApiUrl} testId="opsgenie-api-url" copy="Copy API URL" />
        <Value label="API key (GenieKey)" value={i.genieKey} testId="genie-key" copy="Copy GenieKey" />
      </dl>
      <Tool name="Alertmanager (opsgenie_configs)">
        <Receiver label="Opsgenie receiver" text={receiversBlock(opsgenieReceiver(i))} />
      </Tool>
      <Tool name="Grafana (contact point of type OpsGenie)">
        <Settings rows={[['API Key', i.genieKey], ['Alert API URL', opsgenieAlertsUrl(i)], ['Auto close incidents', 'on']]} />
      </Tool>
      <Tool name="Zabbix (media type Opsgenie)">
        <Settings rows={[['opsgenie_api', opsgenieAlertsUrl(i)], ['opsgenie_token', i.genieKey], ['opsgenie_web', base]]} />
      </Tool>
    </section>
  );
}

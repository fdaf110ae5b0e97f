import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Integration } from '../../api/types';
import { CompatibleApis } from './compatible-apis';

afterEach(cleanup);

const integration = {
  pagerdutyUrl: 'https://alerts.example.com/api/inbound/pagerduty/v2/enqueue',
  routingKey: '0123456789abcdef0123456789abcdef',
  opsgenieApiUrl: 'https://alerts.example.com/api/inbound/opsgenie/',
  genieKey: 'eb243592-faa2-4ba2-a551-1afdf565c889',
} as Integration;

describe('CompatibleApis', () => {
  it('shows each URL and key with a copy button, and each tool\'s settings filled in', () => {
    render(<CompatibleApis integration={integration} canWrite />);
    expect(screen.getByTestId('pagerduty-url').textContent).toBe(integration.pagerdutyUrl);
    expect(screen.getByTestId('routing-key').textContent).toBe(integration.routingKey);
    expect(screen.getByTestId('opsgenie-api-url').textContent).toBe(integration.opsgenieApiUrl);
    expect(screen.getByTestId('genie-key').textContent).toBe(integration.genieKey);
    for (const name of ['Copy events URL', 'Copy routing key', 'Copy API URL', 'Copy GenieKey', 'Copy PagerDuty receiver', 'Copy Opsgenie receiver']) {
      expect(screen.getByRole('button', { name })).toBeTruthy();
    }
    const pd = screen.getByLabelText('PagerDuty receiver').textContent ?? '';
    expect(pd).toContain(`url: ${integration.pagerdutyUrl}`);
    expect(pd).toContain(`routing_key: ${integration.routingKey}`);
    const og = screen.getByLabelText('Opsgenie receiver').textContent ?? '';
    expect(og).toContain(`api_url: ${integration.opsgenieApiUrl}`);
    expect(og).toContain(`api_key: ${integration.genieKey}`);
    const grafana = screen.getByText('Grafana (contact point of type OpsGenie)').closest('details') as HTMLElement;
    expect(within(grafana).getByText('https://alerts.example.com/api/inbound/opsgenie/v2/alerts')).toBeTruthy();
    const zabbix = screen.getByText('Zabbix (media type Opsgenie)').closest('details') as HTMLElement;
    expect(within(zabbix).getByText('https://alerts.example.com/')).toBeTruthy();
  });

  it('tells a reader why the keys are masked', () => {
    render(<CompatibleApis integration={{ ...integration, routingKey: '…cdef', genieKey: '…c889' }} canWrite={false} />);
    expect(screen.getByText(/shown in full only to those who can edit integrations/)).toBeTruthy();
  });
});

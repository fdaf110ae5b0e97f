import { describe, expect, it } from 'vitest';
import { senderLink } from './sender-link';

describe('the sender\'s own link of an alert', () => {
  it('takes generatorURL, then client_url, and names the host', () => {
    expect(senderLink({ generatorURL: 'http://prometheus.example.com:9090/graph?g0.expr=up', client_url: 'https://pd.example.com/x' }))
      .toEqual({ href: 'http://prometheus.example.com:9090/graph?g0.expr=up', host: 'prometheus.example.com:9090' });
    expect(senderLink({ client_url: 'https://monitoring.example.com/checks/42' })).toEqual({ href: 'https://monitoring.example.com/checks/42', host: 'monitoring.example.com' });
  });

  it('never links another scheme, and skips it for the next candidate', () => {
    expect(senderLink({ generatorURL: 'javascript:alert(1)' })).toBeNull();
    expect(senderLink({ generatorURL: 'data:text/html,<script>x</script>', client_url: 'https://ok.example.com/' })?.href).toBe('https://ok.example.com/');
    expect(senderLink({ generatorURL: 'not a url' })).toBeNull();
    expect(senderLink({ runbook_url: 'https://runbooks.example.com/' })).toBeNull();
  });
});

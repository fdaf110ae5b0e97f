import { safeHref } from '../../components/format';

/**
 * Where a sender keeps its own page of an alert, in the annotations its preset or adapter writes: Alertmanager's
 * and Grafana's `generatorURL`, PagerDuty's `client_url`. The first that is an http(s) URL, or null: any other
 * scheme (javascript:, data:) is never made a link.
 */
const SENDER_LINKS = ['generatorURL', 'client_url'] as const;

export function senderLink(annotations: Record<string, string>): { href: string; host: string } | null {
  for (const key of SENDER_LINKS) {
    const value = annotations[key];
    const href = value === undefined ? null : safeHref(value);
    if (href !== null) return { href, host: new URL(href).host };
  }
  return null;
}

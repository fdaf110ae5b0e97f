import { coveredMs } from '../analytics/analytics-fns.ts';
import { escapeHtml } from '../notifications/notifications-fns.ts';
import { zoneClock } from '../schedules/zone-fns.ts';
import type { ClientReport } from './reports-schemas.ts';

/**
 * A client report's pure parts: availability from critical alerts' open spans, and the monthly email. Every
 * text a sender wrote (alert titles, incident titles, window names) goes through `escapeHtml` in the HTML part.
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `2026-03` as `March 2026`. */
export function monthName(period: string): string {
  const [y, m] = period.split('-').map(Number) as [number, number];
  return `${MONTHS[m - 1]} ${y}`;
}

/** Availability per service (the client as a whole first, `*`): time of the period without an open critical alert. */
export function availability(spans: ReadonlyArray<{ start: number; end: number | null; service: string }>, from: number, to: number): ClientReport['availability'] {
  const entry = (service: string, list: ReadonlyArray<{ start: number; end: number | null }>) => {
    const downMs = coveredMs(list, from, to);
    return { service, downMs, percent: Math.round((1 - downMs / (to - from)) * 100_000) / 1000 };
  };
  const services = [...new Set(spans.map((s) => s.service))].sort();
  return [entry('*', spans), ...services.map((s) => entry(s, spans.filter((x) => x.service === s))).filter((e) => e.downMs > 0)];
}

/** A duration in words a client reads: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. */
export function duration(ms: number | null): string {
  if (ms === null) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h${min % 60 ? ` ${min % 60} min` : ''}`;
  return `${Math.floor(h / 24)} d${h % 24 ? ` ${h % 24} h` : ''}`;
}

/** An instant as the organization's clocks show it: `2026-03-04 14:05`. */
export function localTime(isoTime: string, zone: string): string {
  const w = zoneClock(zone).wall(Date.parse(isoTime));
  const p = (n: number) => String(n).padStart(2, '0');
  return `${w.year}-${p(w.month)}-${p(w.day)} ${p(w.hour)}:${p(w.minute)}`;
}

const trendWords = (r: ClientReport): string => (r.volume.trendPercent === null
  ? `none in ${monthName(r.previousPeriod)}`
  : `${r.volume.trendPercent > 0 ? '+' : ''}${r.volume.trendPercent} % against ${monthName(r.previousPeriod)} (${r.volume.previousAlerts})`);

const serviceName = (s: string): string => (s === '*' ? 'All services' : s === '' ? '(no service label)' : s);

/** The monthly email: subject, plain text, and HTML with every sender text escaped. */
export function reportEmail(r: ClientReport, opts: { orgName: string; reportUrl: string }): { subject: string; text: string; html: string } {
  const month = monthName(r.period);
  const subject = `${r.client.name}: ${month} report`;
  const rt = r.responseTimes;
  const text = [
    `${r.client.name} — ${month} (${r.timezone})`,
    `From ${opts.orgName}.`,
    '',
    `Alerts: ${r.volume.alerts} (${trendWords(r)}); payloads ${r.volume.occurrences}; resolved within a minute ${r.volume.quickResolves}; pages ${r.volume.pages}.`,
    `Incidents: ${r.incidents.total}. Time to acknowledge: median ${duration(rt.ack.median)}, p90 ${duration(rt.ack.p90)}. Time to resolve: median ${duration(rt.resolve.median)}, p90 ${duration(rt.resolve.p90)}.`,
    '',
    'Availability (time without an open critical alert):',
    ...r.availability.map((a) => `  ${serviceName(a.service)}: ${a.percent} %`),
    '',
    'Incidents:',
    ...(r.incidents.list.length === 0 ? ['  none'] : r.incidents.list.map((i) => `  #${i.number} ${i.title} (${i.severity}) opened ${localTime(i.openedAt, r.timezone)}, ${i.resolvedAt ? `resolved after ${duration(i.durationMs)}` : i.status}`)),
    '',
    'Noisiest alerts:',
    ...(r.noisyAlerts.length === 0 ? ['  none'] : r.noisyAlerts.map((a) => `  ${a.counts.occurrences} × ${a.title}`)),
    '',
    'Maintenance windows:',
    ...(r.maintenance.length === 0 ? ['  none'] : r.maintenance.map((m) => `  ${m.name}: ${localTime(m.startsAt, r.timezone)} – ${localTime(m.endsAt, r.timezone)}`)),
    '',
    `The full report: ${opts.reportUrl}`,
    '',
  ].join('\n');

  const e = escapeHtml;
  const rows = (cells: string[][]) => cells.map((c) => `<tr>${c.map((x) => `<td style="padding:4px 8px;border-bottom:1px solid #ddd">${x}</td>`).join('')}</tr>`).join('');
  const table = (head: string[], body: string[][]) => body.length === 0 ? '<p>None.</p>'
    : `<table style="border-collapse:collapse;width:100%"><thead><tr>${head.map((h) => `<th style="text-align:left;padding:4px 8px;border-bottom:2px solid #999">${h}</th>`).join('')}</tr></thead><tbody>${rows(body)}</tbody></table>`;
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1b1f24;max-width:720px">
<h1 style="font-size:20px">${e(r.client.name)} — ${month}</h1>
<p style="color:#57606a">From ${e(opts.orgName)}; times in ${e(r.timezone)}.</p>
<h2 style="font-size:16px">Summary</h2>
<ul>
<li>Alerts: <strong>${r.volume.alerts}</strong> (${e(trendWords(r))}); payloads ${r.volume.occurrences}; resolved within a minute ${r.volume.quickResolves}; pages ${r.volume.pages}</li>
<li>Incidents: <strong>${r.incidents.total}</strong></li>
<li>Time to acknowledge: median ${duration(rt.ack.median)}, p90 ${duration(rt.ack.p90)}</li>
<li>Time to resolve: median ${duration(rt.resolve.median)}, p90 ${duration(rt.resolve.p90)}</li>
</ul>
<h2 style="font-size:16px">Availability</h2>
${table(['Service', 'Without an open critical alert', 'Down'], r.availability.map((a) => [e(serviceName(a.service)), `${a.percent} %`, duration(a.downMs)]))}
<h2 style="font-size:16px">Incidents</h2>
${table(['#', 'Title', 'Severity', 'Opened', 'Duration'], r.incidents.list.map((i) => [String(i.number), e(i.title), i.severity, localTime(i.openedAt, r.timezone), i.resolvedAt ? duration(i.durationMs) : i.status]))}
<h2 style="font-size:16px">Noisiest alerts</h2>
${table(['Alert', 'Occurrences', 'Pages'], r.noisyAlerts.map((a) => [e(a.title), String(a.counts.occurrences), String(a.counts.pages)]))}
<h2 style="font-size:16px">Maintenance windows</h2>
${table(['Window', 'From', 'To'], r.maintenance.map((m) => [e(m.name), localTime(m.startsAt, r.timezone), localTime(m.endsAt, r.timezone)]))}
<p><a href="${e(opts.reportUrl)}">The full report</a></p>
</body></html>`;
  return { subject, text, html };
}

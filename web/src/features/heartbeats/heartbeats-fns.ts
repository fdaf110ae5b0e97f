import type { Heartbeat } from '../../api/types';

/** A number of seconds as people write it: `24 h`, `15 min`, `90 s`. */
export function duration(s: number): string {
  if (s === 0) return '0 s';
  if (s % 3600 === 0) return `${s / 3600} h`;
  if (s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}

/** The schedule in words: "every 24 h, 5 min grace". */
export const every = (b: Pick<Heartbeat, 'intervalSeconds' | 'graceSeconds'>): string =>
  `every ${duration(b.intervalSeconds)}, ${duration(b.graceSeconds)} grace`;

/** Labels as the form shows them: one `key=value` per line. */
export const labelsText = (labels: Record<string, string>): string => Object.entries(labels).map(([k, v]) => `${k}=${v}`).join('\n');

/** The form's labels text read back; a line that is not `key=value` is named, so the form can say which. */
export function parseLabels(text: string): { ok: true; labels: Record<string, string> } | { ok: false; error: string } {
  const labels: Record<string, string> = {};
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const at = line.indexOf('=');
    const key = at < 0 ? '' : line.slice(0, at).trim();
    if (key === '') return { ok: false, error: `line ${i + 1} is not key=value` };
    labels[key] = line.slice(at + 1).trim();
  }
  return { ok: true, labels };
}

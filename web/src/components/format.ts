const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function formatTime(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

/** "1 alert", "3 alerts": a count with its noun in the right number. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** How long ago, in the largest whole unit: "just now", "5 min ago", "3 h ago", "2 days ago". */
export function formatAge(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${plural(Math.floor(s / 86_400), 'day')} ago`;
}

/** A link target only for http(s): anything else a sender wrote (`javascript:`, `data:`) stays plain text. */
export function safeHref(value: string): string | null {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** A duration in milliseconds as a person reads it: `45 s`, `12 min`, `3.5 h`, `2.1 d`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${Math.round(ms / 360_000) / 10} h`;
  return `${Math.round(ms / 8_640_000) / 10} d`;
}

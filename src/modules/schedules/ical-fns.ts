import { createHash } from 'node:crypto';

/**
 * The few lines of RFC 5545 an on-call feed needs, written here rather than through a library: one
 * VCALENDAR of VEVENTs in UTC, TEXT values escaped (§3.3.11) and content lines folded at 75 octets
 * (§3.1), every line ending in CRLF.
 */

export interface CalendarEvent {
  uid: string;
  startsAt: number;
  endsAt: number;
  summary: string;
  description: string;
}

/** TEXT: backslash, semicolon and comma escaped, a line break as `\n`, other control characters dropped. */
export function escapeText(value: string): string {
  return value
    .replace(/\r\n?/g, '\n')
    .replace(/[\\;,]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/[\u0000-\u0008\u000A-\u001F\u007F]/g, '');
}

/** A content line folded so no line exceeds 75 octets, never inside a UTF-8 sequence; continuation lines start with a space. */
export function foldLine(line: string): string {
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch, 'utf8');
    // The first line holds 75 octets; a continuation holds 74 after its leading space.
    if (octets + size > (parts.length === 0 ? 75 : 74)) {
      parts.push(current);
      current = '';
      octets = 0;
    }
    current += ch;
    octets += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

/** An instant as a UTC DATE-TIME (`20261121T100000Z`); milliseconds are dropped. */
export function icsTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
}

/** A UID that stays the same for the same shift on every fetch of the feed. */
export function eventUid(parts: readonly string[], domain = 'alertflow'): string {
  return `${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32)}@${domain}`;
}

export function calendar(opts: { name: string; timezone: string; stamp: number; events: readonly CalendarEvent[] }): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//AlertFlow//On-call schedule//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${escapeText(opts.name)}`,
    `X-WR-TIMEZONE:${escapeText(opts.timezone)}`,
  ];
  for (const e of opts.events) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${e.uid}`,
      `DTSTAMP:${icsTime(opts.stamp)}`,
      `DTSTART:${icsTime(e.startsAt)}`,
      `DTEND:${icsTime(e.endsAt)}`,
      `SUMMARY:${escapeText(e.summary)}`,
      `DESCRIPTION:${escapeText(e.description)}`,
      'TRANSP:TRANSPARENT',
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return lines.map(foldLine).join('\r\n') + '\r\n';
}

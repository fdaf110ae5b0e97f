/**
 * Wall-clock time in an IANA zone with nothing but Intl: what a calendar and a `datetime-local` field need.
 * A "wall" value is the zone's local date and time written as if it were UTC (epoch ms), so that day
 * arithmetic on it is plain addition and `getUTC*` reads its fields.
 */

export const DAY_MS = 86_400_000;

const parts = new Map<string, Intl.DateTimeFormat>();
function partsFormat(zone: string): Intl.DateTimeFormat {
  let f = parts.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    parts.set(zone, f);
  }
  return f;
}

/** The zone's wall clock at the instant `t`, as a wall value. */
export function wallOf(t: number, zone: string): number {
  const p = Object.fromEntries(partsFormat(zone).formatToParts(new Date(t)).map((x) => [x.type, Number(x.value)]));
  return Date.UTC(p.year as number, (p.month as number) - 1, p.day, p.hour, p.minute, p.second) + (t % 1000 + 1000) % 1000;
}

/**
 * The instant at which the zone's clock reads `wall`. A time that happens twice (the hour repeated when
 * clocks go back) gives the earlier; a time that never happens (the hour skipped) gives the instant just
 * after the gap, as the clock shows it.
 */
export function instantOf(wall: number, zone: string): number {
  const offsets = [wallOf(wall - DAY_MS, zone) - (wall - DAY_MS), wallOf(wall + DAY_MS, zone) - (wall + DAY_MS)];
  const valid = offsets.map((o) => wall - o).filter((t) => wallOf(t, zone) === wall);
  return valid.length > 0 ? Math.min(...valid) : wall - (offsets[0] as number);
}

/** `YYYY-MM-DDTHH:mm`, the value of a `datetime-local` field, of the instant `t` in `zone`. */
export const localInput = (t: number, zone: string): string => new Date(wallOf(t, zone)).toISOString().slice(0, 16);

/** The instant a `datetime-local` value means in `zone`; NaN when it is not one. */
export function fromLocalInput(value: string, zone: string): number {
  const wall = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? Date.parse(`${value}:00Z`) : NaN;
  return Number.isNaN(wall) ? NaN : instantOf(wall, zone);
}

/** The viewer's own zone. */
export const viewerZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Every zone this browser knows, for a picker (UTC first). */
export function zoneNames(): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...all.filter((z) => z !== 'UTC')];
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** `t` formatted in `zone` (cached formatters: a calendar formats hundreds of times per render). */
export function formatIn(t: number | string, zone: string, options: Intl.DateTimeFormatOptions): string {
  const key = `${zone}|${JSON.stringify(options)}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, { ...options, timeZone: zone });
    formats.set(key, f);
  }
  return f.format(typeof t === 'string' ? Date.parse(t) : t);
}

export const dateTimeIn = (t: number | string, zone: string): string => formatIn(t, zone, { dateStyle: 'medium', timeStyle: 'short' });
/** `t` in `zone` with the zone named, "24 Nov 2026, 09:00 America/New_York": for text (labels, titles) where another zone is in play. */
export const dateTimeZoned = (t: number | string, zone: string): string => `${dateTimeIn(t, zone)} ${zone}`;
// 24-hour, whatever the locale: a day cell reads 00:00–24:00.
export const timeIn = (t: number | string, zone: string): string => formatIn(t, zone, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

const dayIn = (t: number | string, zone: string): string => formatIn(t, zone, { weekday: 'short', day: 'numeric', month: 'short' });

/** A stretch of time in `zone`, short: "Mon, 30 Nov, 15:00–23:00", or both days when it crosses midnight there. */
export function spanIn(start: number | string, end: number | string, zone: string): string {
  const [d1, d2] = [dayIn(start, zone), dayIn(end, zone)];
  return d1 === d2 ? `${d1}, ${timeIn(start, zone)}–${timeIn(end, zone)}` : `${d1}, ${timeIn(start, zone)} – ${d2}, ${timeIn(end, zone)}`;
}

import { dateTimeIn, viewerZone } from './zone';

interface Props {
  at: string | number;
  /** The end of a span, when this is one. */
  until?: string | number;
  /** The zone whose clock the time is written in: a schedule's, a window's, the organization's. */
  zone: string;
  /** The viewer's zone (a prop for tests). */
  mine?: string;
}

/**
 * A time (or span) on a page where two zones meet: written in `zone` with the zone named, and on the viewer's
 * clock beside it when that is another zone, "24 Nov 2026, 09:00 America/New_York (24 Nov 2026, 15:00 yours)".
 * A bare time there would be read on the wrong clock.
 */
export function ZonedTime({ at, until, zone, mine = viewerZone() }: Props) {
  const text = (z: string) => (until === undefined ? dateTimeIn(at, z) : `${dateTimeIn(at, z)} – ${dateTimeIn(until, z)}`);
  return (
    <span className="zoned">
      <time dateTime={new Date(at).toISOString()}>{text(zone)}</time> {zone}
      {mine !== zone && <span className="muted"> ({text(mine)} yours)</span>}
    </span>
  );
}

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

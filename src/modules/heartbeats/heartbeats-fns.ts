import { randomBytes } from 'node:crypto';
import type { Severity } from '../alerts/alerts-fns.ts';
import type { NormalizedAlert } from '../ingest/normalize-fns.ts';

/** What a heartbeat reports: never pinged, pinged in time, missed (its alert is open), or not watched. */
export const HEARTBEAT_STATES = ['new', 'up', 'down', 'paused'] as const;
export type HeartbeatState = (typeof HEARTBEAT_STATES)[number];

/** The label every heartbeat alert carries, naming its heartbeat (workflow conditions and suppression windows can match it). */
export const HEARTBEAT_LABEL = 'heartbeat';
/** The `source` of every heartbeat alert (they have no integration). */
export const HEARTBEAT_SOURCE = 'heartbeat';

export interface HeartbeatTiming {
  interval_seconds: number;
  grace_seconds: number;
  paused: number;
  state: string;
  last_ping_at: number | null;
  created_at: number;
  due_at: number;
}

/** 192 random bits, URL-safe: the token travels in the ping URL path. */
export const newPingToken = (): string => `hb_${randomBytes(24).toString('base64url')}`;

/**
 * When a heartbeat is missed unless pinged first: its interval plus grace after the last ping — or after its
 * creation when it has never pinged, so a job that never runs at all is caught too.
 */
export const dueAt = (lastPingAt: number | null, createdAt: number, intervalSeconds: number, graceSeconds: number): number =>
  (lastPingAt ?? createdAt) + (intervalSeconds + graceSeconds) * 1000;

/** Missed: watched, not already down, and past its due time. The checker's SQL claim says the same. */
export const isMissed = (h: HeartbeatTiming, now: number): boolean => h.paused === 0 && h.state !== 'down' && h.due_at < now;

export const reportedState = (h: Pick<HeartbeatTiming, 'paused' | 'state'>): HeartbeatState => (h.paused === 1 ? 'paused' : (h.state as HeartbeatState));

/** One heartbeat, one alert: the fingerprint is its id, so a second claim deduplicates instead of opening another. */
export const heartbeatFingerprint = (id: string): string => `heartbeat:${id}`;

/** A duration as people write it: `24 h`, `15 min`, `90 s`. */
const duration = (s: number): string => (s === 0 ? '0 s' : s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);

export interface MissedHeartbeat {
  id: string;
  name: string;
  severity: string;
  labels: Record<string, string>;
  interval_seconds: number;
  grace_seconds: number;
  last_ping_at: number | null;
  due_at: number;
}

/** The alert a missed heartbeat opens. */
export function missedAlert(h: MissedHeartbeat): NormalizedAlert {
  const since = h.last_ping_at === null ? 'it was created (never pinged)' : new Date(h.last_ping_at).toISOString();
  return {
    title: `Heartbeat ${h.name} missed`,
    severity: h.severity as Severity,
    status: 'firing',
    source: HEARTBEAT_SOURCE,
    description: `No ping since ${since}; expected every ${duration(h.interval_seconds)} with ${duration(h.grace_seconds)} of grace.`,
    fingerprint: heartbeatFingerprint(h.id),
    labels: { ...h.labels, [HEARTBEAT_LABEL]: h.name },
    annotations: {},
    payload: { heartbeatId: h.id, lastPingAt: h.last_ping_at, dueAt: h.due_at },
  };
}

/** What resolves a heartbeat's open alert (a ping, or the heartbeat's deletion). */
export const resolvedAlert = (id: string): NormalizedAlert => ({
  title: null, severity: null, status: 'resolved', source: HEARTBEAT_SOURCE, description: null,
  fingerprint: heartbeatFingerprint(id), labels: {}, annotations: {}, payload: null,
});

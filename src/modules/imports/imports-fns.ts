import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import { PRESET_NAMES } from '../ingest/presets.ts';
import { channelsFor } from '../notifications/channels/registry.ts';
import { MAX_RESTRICTIONS } from '../schedules/schedules-schemas.ts';
import { DAYS, HOUR_MS, type Day, type Restriction, type Rotation } from '../schedules/rotation-fns.ts';
import type { SourceLayer } from './imports-model.ts';

/**
 * The conversions every source needs, pure: turn lengths to rotations, a vendor's on-call windows to
 * AlertFlow restrictions, delays to whole minutes, and the digest that tells an unchanged object.
 */

export const DAY_MINUTES = 1440;
const WEEK_MINUTES = 7 * DAY_MINUTES;

/** A stable hash of a JSON value: object keys sorted, so the order a vendor lists fields in does not matter. */
export function digestOf(value: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  return createHash('sha256').update(JSON.stringify(canonical(value))).digest('base64url');
}

/** The rotation whose turn lasts `hours` whole hours: hourly, daily, weekly, else custom. */
export function rotationOfHours(hours: number): { rotation: Rotation; shiftHours: number | null } {
  if (hours === 1) return { rotation: 'hourly', shiftHours: null };
  if (hours === 24) return { rotation: 'daily', shiftHours: null };
  if (hours === 168) return { rotation: 'weekly', shiftHours: null };
  return { rotation: 'custom', shiftHours: hours };
}

export const hhmm = (minuteOfDay: number): string =>
  `${String(Math.floor(minuteOfDay / 60)).padStart(2, '0')}:${String(minuteOfDay % 60).padStart(2, '0')}`;

/** An on-call window that repeats every week: from `day` (0 = Monday) at `startMinute`, lasting `minutes`. */
export interface Window {
  day: number;
  startMinute: number;
  minutes: number;
}

/**
 * Windows as AlertFlow restrictions. A restriction belongs to the day it starts on and lasts at most 24 hours,
 * so a longer window becomes a chain of 24-hour pieces and the rest (the pieces touch, and touching windows
 * merge: `rotation-fns.ts`); pieces with the same times share one restriction. A window of a whole week is no
 * restriction at all. `null` when more than AlertFlow allows per layer would be needed.
 */
export function restrictionsOf(windows: readonly Window[]): Restriction[] | null {
  const groups = new Map<string, Set<number>>();
  for (const w of windows) {
    if (w.minutes <= 0) continue;
    if (w.minutes >= WEEK_MINUTES) return [];
    let day = ((w.day % 7) + 7) % 7;
    let left = w.minutes;
    while (left > 0) {
      const take = Math.min(left, DAY_MINUTES);
      const key = `${hhmm(w.startMinute)}-${hhmm((w.startMinute + take) % DAY_MINUTES)}`;
      const days = groups.get(key) ?? new Set<number>();
      days.add(day);
      groups.set(key, days);
      left -= take;
      day = (day + 1) % 7;
    }
  }
  const out: Restriction[] = [...groups.entries()].map(([key, days]) => {
    const [from, to] = key.split('-') as [string, string];
    return { days: [...days].sort((a, b) => a - b).map((d) => DAYS[d] as Day), from, to };
  });
  return out.length > MAX_RESTRICTIONS ? null : out;
}

/** The start of turn `k` of a layer: fixed hours for hourly and custom turns, the same local time for daily and weekly. */
export function handoffAt(layer: Pick<SourceLayer, 'startsAt' | 'rotation' | 'shiftHours'>, zone: string, k: number): number {
  if (layer.rotation === 'hourly') return layer.startsAt + k * HOUR_MS;
  if (layer.rotation === 'custom') return layer.startsAt + k * (layer.shiftHours ?? 1) * HOUR_MS;
  const days = (layer.rotation === 'daily' ? 1 : 7) * k;
  return DateTime.fromMillis(layer.startsAt, { zone }).plus({ days }).toMillis();
}

/**
 * The layer started at its first turn at or after `notBefore` (the users turned on by the turns skipped), for
 * a source layer that begins later than its rotation's anchor: AlertFlow has nobody on call before a layer's
 * start. `exact` is false when `notBefore` fell inside a turn, whose remainder is then lost.
 */
export function startLayerAt(layer: SourceLayer, zone: string, notBefore: number): { layer: SourceLayer; exact: boolean } {
  if (notBefore <= layer.startsAt) return { layer, exact: true };
  let k = 0;
  while (handoffAt(layer, zone, k) < notBefore) k += 1;
  const n = layer.users.length;
  const users = layer.users.map((_, i) => layer.users[(i + k) % n] as string);
  return { layer: { ...layer, startsAt: handoffAt(layer, zone, k), users }, exact: handoffAt(layer, zone, k) === notBefore };
}

/** Whole minutes of a delay given in seconds, rounded up; whether that was exact. */
export function minutesOf(seconds: number): { minutes: number; exact: boolean } {
  return { minutes: Math.ceil(seconds / 60), exact: seconds % 60 === 0 };
}

/** Words in a vendor's integration type or name, and the preset that reads what such a sender posts. */
const PRESET_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/alertmanager|prometheus/i, 'alertmanager'],
  [/grafana/i, 'grafana'],
  [/zabbix/i, 'zabbix'],
  [/datadog/i, 'datadog'],
  [/uptime[\s_-]?kuma/i, 'uptime-kuma'],
  [/azure/i, 'azure-monitor'],
  [/new[\s_-]?relic/i, 'newrelic'],
];

/** The nearest built-in preset for a sender named by `text` (its type or vendor), else the standard payload. */
export function nearestPreset(text: string): string {
  const found = PRESET_WORDS.find(([words]) => words.test(text));
  return found && PRESET_NAMES.includes(found[1]) ? found[1] : 'standard';
}

/** Minutes since local midnight and the weekday (0 = Monday) of an instant in a zone. */
export function localClock(at: number, zone: string): { day: number; minute: number } {
  const d = DateTime.fromMillis(at, { zone });
  return { day: d.weekday - 1, minute: d.hour * 60 + d.minute };
}

/** `a` rotated so that it starts at index `from`. */
export const rotated = <T>(a: readonly T[], from: number): T[] => a.map((_, i) => a[(((i + from) % a.length) + a.length) % a.length] as T);

export const isoMinute = (at: number): string => new Date(at).toISOString().slice(0, 16).replace('T', ' ');

/** Why a vendor's contact of another kind is not imported, naming the channels a member can be paged by (the registry's). */
export const noChannel = (what: string): string => `${what}: AlertFlow pages members by ${channelsFor('contact').join(', ')}, not by that`;

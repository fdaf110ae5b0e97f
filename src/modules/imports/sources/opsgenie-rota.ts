import { MAX_REPEAT } from '../../escalations/escalations-schemas.ts';
import { isValidTimezone } from '../../suppression/recurrence-fns.ts';
import { DAY_MINUTES, isoMinute, restrictionsOf, rotationOfHours, type Window } from '../imports-fns.ts';
import type { Skip, SourceLayer, SourcePolicy, SourceSchedule, SourceTarget } from '../imports-model.ts';
import { arr, num, obj, str, type Json } from './source.ts';

/**
 * Opsgenie's schedules and escalations in AlertFlow's terms, from opsgenie/opsgenie-oas: `definitions/schedule.yaml`
 * (Schedule), `scheduleRotation.yaml` (ScheduleRotation: type, length, startDate, endDate, participants,
 * timeRestriction), `scheduleOverride.yaml` (ScheduleOverride), `common.yaml` (TimeRestrictionInterval,
 * Duration, Recipient) and `escalation.yaml` (Escalation, EscalationRule, EscalationRepeat). Pure.
 */

const DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const UNIT_HOURS: Record<string, number> = { hourly: 1, daily: 24, weekly: 168 };

/** A `Duration` in minutes (rounded up), and whether that was exact. */
export function durationMinutes(d: Json): { minutes: number; exact: boolean } {
  const amount = num(d.timeAmount) ?? 0;
  const perMinute: Record<string, number> = { days: 1 / 1440, hours: 1 / 60, minutes: 1, seconds: 60, miliseconds: 60_000, micros: 60_000_000, nanos: 60_000_000_000 };
  const per = perMinute[str(d.timeUnit) ?? 'minutes'] ?? 1;
  const minutes = amount / per;
  return { minutes: Math.ceil(minutes), exact: Number.isInteger(minutes) };
}

/** The weekly windows of a `TimeRestrictionInterval`; null when there is none (always on call). */
function windowsOf(t: Json): Window[] | null {
  const at = (h: unknown, m: unknown) => (num(h) ?? 0) * 60 + (num(m) ?? 0);
  if (str(t.type) === 'time-of-day') {
    const r = obj(t.restriction);
    const from = at(r.startHour, r.startMin);
    const to = at(r.endHour, r.endMin);
    const minutes = to > from ? to - from : to - from + DAY_MINUTES;
    return [0, 1, 2, 3, 4, 5, 6].map((day) => ({ day, startMinute: from, minutes }));
  }
  if (str(t.type) === 'weekday-and-time-of-day') {
    return arr(t.restrictions).map((r) => {
      const day = DAY_NAMES.indexOf(str(r.startDay) ?? '');
      const start = day * DAY_MINUTES + at(r.startHour, r.startMin);
      const end = DAY_NAMES.indexOf(str(r.endDay) ?? '') * DAY_MINUTES + at(r.endHour, r.endMin);
      return { day, startMinute: at(r.startHour, r.startMin), minutes: end > start ? end - start : end - start + 7 * DAY_MINUTES };
    });
  }
  return null;
}

/** Minute-of-week intervals a set of windows covers (for telling whether two rotations can overlap). */
function coverage(windows: Window[] | null): Array<[number, number]> {
  if (windows === null) return [[0, 14 * DAY_MINUTES]];
  return windows.flatMap((w) => {
    const s = w.day * DAY_MINUTES + w.startMinute;
    return [[s, s + w.minutes], [s + 7 * DAY_MINUTES, s + 7 * DAY_MINUTES + w.minutes]] as Array<[number, number]>;
  });
}
const overlap = (a: Array<[number, number]>, b: Array<[number, number]>) => a.some(([s1, e1]) => b.some(([s2, e2]) => s1 < e2 && s2 < e1));

interface Rotation {
  json: Json;
  layer: SourceLayer;
  windows: Window[] | null;
}

function rotation(s: Json, r: Json, users: (recipient: Json) => string | null, now: number, skips: Skip[]): Rotation | null {
  const name = str(r.name) ?? 'Rotation';
  const where = { kind: 'schedule_rotation', sourceId: `${str(s.id)}/${str(r.id)}`, name: `${str(s.name)}: ${name}` };
  const end = str(r.endDate) ? Date.parse(str(r.endDate) as string) : null;
  if (end !== null && end <= now) {
    skips.push({ ...where, reason: `ended ${isoMinute(end)} UTC` });
    return null;
  }
  const hours = (UNIT_HOURS[str(r.type) ?? ''] ?? 0) * (num(r.length) ?? 1);
  if (hours <= 0) {
    skips.push({ ...where, reason: `a ${str(r.type)} rotation: AlertFlow turns are hours, days or weeks` });
    return null;
  }
  const members: string[] = [];
  for (const p of arr(r.participants)) {
    const id = str(p.type) === 'user' ? users(p) : null;
    if (id !== null) members.push(id);
    else skips.push({ ...where, reason: str(p.type) === 'none' ? 'an empty turn ("no one"): AlertFlow rotations go from person to person, so the turns after it fall differently' : `a ${str(p.type)} participant: AlertFlow rotations are of people` });
  }
  const windows = r.timeRestriction ? windowsOf(obj(r.timeRestriction)) : null;
  const restrictions = windows === null ? [] : restrictionsOf(windows);
  if (restrictions === null) {
    skips.push({ ...where, reason: 'its time restriction would need more than AlertFlow\'s 14 restrictions per layer' });
    return null;
  }
  if (end !== null) skips.push({ ...where, reason: `ends ${isoMinute(end)} UTC: AlertFlow layers have no end, so it goes on after that` });
  return {
    json: r,
    windows,
    layer: { name: name.slice(0, 100), startsAt: Date.parse(str(r.startDate) ?? ''), ...rotationOfHours(hours), users: members, restrictions },
  };
}

/**
 * A schedule as one AlertFlow schedule when its rotations never overlap; else one AlertFlow schedule per rotation,
 * since Opsgenie pages everyone on call in every rotation and an AlertFlow schedule has one person at a time.
 * Returns the schedules and the ids that stand for the source schedule in escalations.
 */
export function opsgenieSchedule(s: Json, overrides: Json[], users: (recipient: Json) => string | null, now: number, skips: Skip[]): SourceSchedule[] {
  const id = str(s.id) ?? '';
  const name = str(s.name) ?? id;
  const zone = str(s.timezone) ?? 'UTC';
  if (s.enabled === false) {
    skips.push({ kind: 'schedule', sourceId: id, name, reason: 'disabled in Opsgenie' });
    return [];
  }
  if (!isValidTimezone(zone)) {
    skips.push({ kind: 'schedule', sourceId: id, name, reason: `time zone "${zone}" is not an IANA zone name` });
    return [];
  }
  const rotations = arr(s.rotations).map((r) => rotation(s, r, users, now, skips)).filter((r): r is Rotation => r !== null);
  const separate = rotations.some((a, i) => rotations.some((b, j) => j > i && overlap(coverage(a.windows), coverage(b.windows))));
  const future = overrides.map((o) => ({ json: o, user: users(obj(o.user)), startsAt: Date.parse(str(o.startDate) ?? ''), endsAt: Date.parse(str(o.endDate) ?? '') }))
    .filter((o) => o.endsAt > now);
  for (const o of future) if (o.user === null) skips.push({ kind: 'schedule_override', sourceId: `${id}/${str(o.json.alias)}`, name: `${name}: override from ${isoMinute(o.startsAt)} UTC`, reason: 'it names no person AlertFlow can match' });
  const overridesFor = (rotationId: string | null) => future.flatMap((o) => {
    const only = arr(o.json.rotations).map((r) => str(r.id));
    return o.user !== null && (rotationId === null || only.length === 0 || only.includes(rotationId)) ? [{ user: o.user, startsAt: o.startsAt, endsAt: o.endsAt }] : [];
  });
  if (!separate) {
    for (const o of future) {
      if (arr(o.json.rotations).length > 0 && o.user !== null) skips.push({ kind: 'schedule_override', sourceId: `${id}/${str(o.json.alias)}`, name: `${name}: override from ${isoMinute(o.startsAt)} UTC`, reason: 'applies to some rotations only in Opsgenie; an AlertFlow override covers the whole schedule' });
    }
    return [{ sourceId: id, name, description: str(s.description), timezone: zone, layers: rotations.map((r) => r.layer), overrides: overridesFor(null) }];
  }
  return rotations.map((r) => ({
    sourceId: `${id}/${str(r.json.id)}`,
    name: `${name}: ${r.layer.name}`,
    description: `Rotation ${r.layer.name} of the Opsgenie schedule ${name}, which pages every rotation's on-call person at once.`,
    timezone: zone,
    layers: [r.layer],
    overrides: overridesFor(str(r.json.id)),
  }));
}

/**
 * An escalation: Opsgenie times each rule from the alert's creation, AlertFlow each step from the one before,
 * so rules at the same time share a step and a step waits the difference to the next; a repeat waits
 * `waitInterval` minutes after the last rule.
 */
export function opsgeniePolicy(e: Json, targets: (recipient: Json, where: Skip) => SourceTarget[], skips: Skip[]): SourcePolicy {
  const id = str(e.id) ?? '';
  const name = str(e.name) ?? id;
  const timed: Array<{ at: number; targets: SourceTarget[] }> = [];
  arr(e.rules).forEach((r, i) => {
    const where: Skip = { kind: 'escalation_rule', sourceId: `${id}/${i + 1}`, name: `${name}: rule ${i + 1}`, reason: '' };
    const delay = durationMinutes(obj(r.delay));
    if (!delay.exact) skips.push({ ...where, reason: 'its delay is not whole minutes: rounded up to the next minute' });
    if (str(r.condition) === 'if-not-closed') skips.push({ ...where, reason: 'fires until the alert is closed in Opsgenie; AlertFlow escalations stop at acknowledgement' });
    const notify = str(r.notifyType) ?? 'default';
    const recipient = obj(r.recipient);
    if (notify !== 'default') {
      skips.push({ ...where, reason: `notifies the "${notify}" ${str(recipient.type)} of its recipient: AlertFlow pages a person or a schedule's on-call` });
      return;
    }
    const found = targets(recipient, where);
    const step = timed.find((t) => t.at === delay.minutes);
    if (step) step.targets.push(...found);
    else timed.push({ at: delay.minutes, targets: found });
  });
  timed.sort((a, b) => a.at - b.at);
  const first = timed[0];
  if (first && first.at > 0) skips.push({ kind: 'escalation_policy', sourceId: id, name, reason: `its first rule waits ${first.at} minutes: AlertFlow's first step pages at once` });
  const repeat = obj(e.repeat);
  const count = num(repeat.count) ?? 0;
  if (count > MAX_REPEAT) skips.push({ kind: 'escalation_policy', sourceId: id, name, reason: `repeats ${count} times: AlertFlow repeats a policy at most ${MAX_REPEAT} times` });
  if (repeat.closeAlertAfterAll === true) skips.push({ kind: 'escalation_policy', sourceId: id, name, reason: 'closes the alert after its last repeat: AlertFlow leaves it open' });
  const steps = timed.map((t, i) => ({
    delayMinutes: i + 1 < timed.length ? (timed[i + 1] as { at: number }).at - t.at : count > 0 ? num(repeat.waitInterval) ?? 0 : 0,
    targets: t.targets,
  }));
  return { sourceId: id, name, steps, repeat: Math.min(count, MAX_REPEAT) };
}

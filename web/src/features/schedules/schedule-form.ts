import type { CreateScheduleBody, Schedule, ScheduleLayer } from '../../api/types';
import { fromLocalInput, localInput } from '../../components/zone';

export const ROTATIONS = ['hourly', 'daily', 'weekly', 'custom'] as const;
export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = (typeof DAYS)[number];

export interface RestrictionForm {
  days: Day[];
  from: string;
  to: string;
}

export interface LayerForm {
  name: string;
  rotation: ScheduleLayer['rotation'];
  /** Whole hours, as typed (custom rotations only). */
  shiftHours: string;
  /** `datetime-local` value in the schedule's zone. */
  start: string;
  users: string[];
  restrictions: RestrictionForm[];
}

export interface ScheduleForm {
  name: string;
  description: string;
  timezone: string;
  layers: LayerForm[];
  /** Tell the incoming on-call person when their shift starts. */
  handoffNotices: boolean;
}

export const newLayer = (n: number, timezone: string, now: number): LayerForm => ({
  name: `Layer ${n}`,
  rotation: 'weekly',
  shiftHours: '',
  // Today 09:00 in the schedule's zone: a common handoff time.
  start: `${localInput(now, timezone).slice(0, 10)}T09:00`,
  users: [],
  restrictions: [],
});

export const newRestriction = (): RestrictionForm => ({ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' });

export function formOf(s: Schedule): ScheduleForm {
  return {
    name: s.name,
    description: s.description ?? '',
    timezone: s.timezone,
    handoffNotices: s.handoffNotices,
    layers: s.layers.map((l) => ({
      name: l.name,
      rotation: l.rotation,
      shiftHours: l.shiftHours === null ? '' : String(l.shiftHours),
      start: localInput(Date.parse(l.startsAt), s.timezone),
      users: l.users,
      restrictions: l.restrictions.map((r) => ({ days: r.days, from: r.from, to: r.to })),
    })),
  };
}

/**
 * The body the form stands for. What the form cannot read (a start that is not a date, hours that are not
 * a number) is passed on as typed, so that the server refuses it with its own words, next to the field.
 */
export function bodyOf(f: ScheduleForm): CreateScheduleBody & { layers: NonNullable<CreateScheduleBody['layers']> } {
  return {
    name: f.name,
    description: f.description.trim() === '' ? null : f.description,
    timezone: f.timezone,
    handoffNotices: f.handoffNotices,
    layers: f.layers.map((l) => {
      const start = fromLocalInput(l.start, f.timezone);
      const hours = Number(l.shiftHours);
      return {
        name: l.name,
        rotation: l.rotation,
        startsAt: Number.isNaN(start) ? l.start : new Date(start).toISOString(),
        ...(l.rotation === 'custom' && { shiftHours: l.shiftHours.trim() !== '' && Number.isInteger(hours) ? hours : (l.shiftHours as unknown as number) }),
        users: l.users,
        restrictions: l.restrictions,
      };
    }),
  };
}

import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import type { Schedule } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { CalendarFeed } from '../../components/calendar-feed';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay, RecordError } from '../../components/error-display';
import { Loading, Page } from '../../components/page';
import { formatIn, viewerZone } from '../../components/zone';
import { ZonedTime } from '../../components/zoned-time';
import { useCan } from '../auth/session';
import { Calendar, type RangePick } from './calendar';
import { calendarDays, dayOf, shiftAnchor, type CalendarView } from './calendar-fns';
import { OverrideDialog } from './override-dialog';
import { Layers, Overrides } from './schedule-parts';
import { usePeople } from './people';
import { useDeleteSchedule, useSchedule, useScheduleOnCall, useShifts, useUpdateSchedule } from './schedules-api';

function NowOnCall({ id, zone }: { id: string; zone: string }) {
  const q = useScheduleOnCall(id);
  if (q.isPending) return <Loading rows={1} />;
  if (q.error) return <ErrorDisplay error={q.error} />;
  const e = q.data.data[0];
  const until = e?.endsAt ? <>, until <ZonedTime at={e.endsAt} zone={zone} /></> : null;
  return <p data-testid="on-call-now"><strong>{e?.user ? e.user.name : 'Nobody'}</strong> is on call now{until}.</p>;
}

function Detail({ s }: { s: Schedule }) {
  const canWrite = useCan('schedules:write');
  const people = usePeople();
  const update = useUpdateSchedule(s.id);
  const remove = useDeleteSchedule(s.id);
  const navigate = useNavigate();
  const mine = viewerZone();
  const [useMine, setUseMine] = useState(false);
  const zone = useMine ? mine : s.timezone;
  const [view, setView] = useState<CalendarView>('week');
  const today = dayOf(Date.now(), zone);
  const [anchor, setAnchor] = useState<number | null>(null);
  const days = useMemo(() => calendarDays(view, anchor ?? today, zone), [view, anchor, today, zone]);
  const first = days[0];
  const last = days[days.length - 1];
  const shifts = useShifts(s.id, first?.start ?? 0, last?.end ?? 1);
  const [pick, setPick] = useState<RangePick | null>(null);
  const [confirm, setConfirm] = useState(false);
  const [removing, setRemoving] = useState<number | null>(null);

  const saveOverride = (o: { userId: string; startsAt: string; endsAt: string }) =>
    update.mutate({ overrides: [...s.overrides, o] }, { onSuccess: () => setPick(null) });
  const removeOverride = (i: number) => {
    setRemoving(i);
    update.mutate({ overrides: s.overrides.filter((_, j) => j !== i) }, { onSettled: () => setRemoving(null) });
  };
  const feed = `${window.location.origin}/api/v1/schedules/${s.id}/calendar.ics`;
  const dateOf = (wall: number) => formatIn(wall, 'UTC', { dateStyle: 'medium' });
  const title = first && last ? `${dateOf(first.wall)} – ${dateOf(last.wall)}` : '';

  return (
    <Page
      title={s.name}
      actions={canWrite ? (
        <>
          <Link className="button secondary" to={`/oncall/${s.id}/edit`}>Edit schedule</Link>
          <button type="button" className="danger" onClick={() => setConfirm(true)}>Delete</button>
        </>
      ) : undefined}
    >
      {s.description && <p className="prewrap">{s.description}</p>}
      {s.handoffNotices && <p className="muted">Each person is emailed when their shift starts.</p>}
      <section className="panel" aria-labelledby="now-title">
        <h2 id="now-title">Now</h2>
        <NowOnCall id={s.id} zone={zone} />
      </section>
      <section className="panel" aria-labelledby="cal-title">
        <h2 id="cal-title">Shifts <span className="muted">{title}</span></h2>
        <div className="toolbar">
          <div className="tabs" role="group" aria-label="View">
            {(['week', 'month'] as const).map((v) => (
              <button key={v} type="button" className="secondary small" aria-pressed={view === v} onClick={() => setView(v)}>{v === 'week' ? 'Week' : 'Month'}</button>
            ))}
          </div>
          <div className="tabs" role="group" aria-label="Move">
            <button type="button" className="secondary small" onClick={() => setAnchor(shiftAnchor(view, anchor ?? today, -1))}>Previous</button>
            <button type="button" className="secondary small" onClick={() => setAnchor(null)}>Today</button>
            <button type="button" className="secondary small" onClick={() => setAnchor(shiftAnchor(view, anchor ?? today, 1))}>Next</button>
          </div>
          {mine !== s.timezone && (
            <div className="tabs" role="group" aria-label="Time zone">
              <button type="button" className="secondary small" aria-pressed={!useMine} onClick={() => setUseMine(false)}>{s.timezone}</button>
              <button type="button" className="secondary small" aria-pressed={useMine} onClick={() => setUseMine(true)}>Yours ({mine})</button>
            </div>
          )}
        </div>
        <p className="hint">
          Times in {zone}.{canWrite ? ' Choose a day or a shift to put someone else on call for it.' : ''}
        </p>
        <ErrorDisplay error={shifts.error ?? people.error} />
        {shifts.isPending ? <Loading rows={4} /> : (
          <Calendar view={view} days={days} shifts={shifts.data?.data.shifts ?? []} zone={zone} today={today}
            nameOf={people.nameOf} toneOf={people.toneOf} onPick={canWrite ? setPick : undefined} />
        )}
      </section>
      <div className="grid-2">
        <section className="panel" aria-labelledby="layers-title">
          <h2 id="layers-title">Layers</h2>
          <p className="hint">Later layers beat earlier ones; overrides beat every layer.</p>
          <Layers s={s} nameOf={people.nameOf} mine={mine} />
        </section>
        <section className="panel" aria-labelledby="overrides-title">
          <h2 id="overrides-title">Overrides</h2>
          <Overrides overrides={s.overrides} zone={zone} nameOf={people.nameOf} removing={removing} onRemove={canWrite ? removeOverride : undefined} />
          {pick === null && <ErrorDisplay error={update.error} />}
        </section>
      </div>
      <section className="panel" aria-labelledby="feed-title">
        <h2 id="feed-title">Calendar feed</h2>
        <CalendarFeed of={{ kind: 'schedule', id: s.id }} canChange={canWrite} what="every shift of this schedule (a week back, 60 days ahead)" />
        <p className="muted">For scripts, the same with an API key holding <code>schedules:read</code> as a bearer token: <a className="break" href={feed} data-testid="ical-link">{feed}</a></p>
      </section>
      <OverrideDialog pick={pick} zone={zone} users={people.users} index={s.overrides.length} saving={update.isPending}
        error={pick === null ? null : update.error} onSave={saveOverride} onCancel={() => { setPick(null); update.reset(); }} />
      <ConfirmDialog open={confirm} title={`Delete ${s.name}?`} confirmLabel="Delete schedule" danger busy={remove.isPending}
        onCancel={() => setConfirm(false)} onConfirm={() => remove.mutate(undefined, { onSuccess: () => navigate('/oncall'), onSettled: () => setConfirm(false) })}>
        <p>Notifications and incidents that page its on-call person find nobody.</p>
      </ConfirmDialog>
    </Page>
  );
}

export default function SchedulePage() {
  const { id = '' } = useParams();
  const q = useSchedule(id);
  if (q.isPending) return <Page title="Schedule"><Loading rows={6} /></Page>;
  if (q.error) {
    return (
      <Page title="Schedule">
        <RecordError error={q.error} missing={<EmptyState title="This schedule does not exist"><p>Go back to <Link to="/oncall">who is on call</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  return <Detail s={q.data.data} />;
}

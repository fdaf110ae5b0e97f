import { useState, type FormEvent } from 'react';
import { useMembers } from '../../api/actors';
import type { Incident, Severity } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextAreaField } from '../../components/form';
import { useCan, useSession } from '../auth/session';
import { useAddNote, useAddResponder, useEscalateNow, usePolicyChoices, useSnooze, useUpdateIncident } from './incidents-api';

/** Snooze lengths offered, in minutes (the API takes any from 1 to a week). */
export const SNOOZE_CHOICES = [15, 30, 60, 120, 240, 480, 1440];
const snoozeLabel = (m: number) => (m < 60 ? `${m} minutes` : m === 60 ? '1 hour' : m < 1440 ? `${m / 60} hours` : '1 day');

const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

/** Reassign: to a member (while it escalates, the escalation starts again and pages them), to yourself, or to nobody. */
export function AssignForm({ incident }: { incident: Incident }) {
  const members = useMembers().data?.data ?? [];
  const me = useSession().user.id;
  const update = useUpdateIncident(incident.id);
  const [choice, setChoice] = useState(incident.assigneeId ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ assigneeId: choice || null });
  };
  return (
    <form className="inline-add" onSubmit={submit}>
      <SelectField label="Assignee" value={choice} onChange={(e) => setChoice(e.target.value)}>
        <option value="">Unassigned</option>
        {members.map((u) => <option key={u.id} value={u.id}>{u.name} ({u.email})</option>)}
      </SelectField>
      <button type="submit" disabled={update.isPending || choice === (incident.assigneeId ?? '')}>Reassign</button>
      {incident.assigneeId !== me && (
        <button type="button" className="secondary" disabled={update.isPending} onClick={() => update.mutate({ assigneeId: me })}>Assign to me</button>
      )}
      <ErrorDisplay error={update.error} />
    </form>
  );
}

export function SeverityForm({ incident }: { incident: Incident }) {
  const update = useUpdateIncident(incident.id);
  const [choice, setChoice] = useState<Severity>(incident.severity);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ severity: choice });
  };
  return (
    <form className="inline-add" onSubmit={submit}>
      <SelectField label="Severity" value={choice} onChange={(e) => setChoice(e.target.value as Severity)}>
        {SEVERITIES.map((s) => <option key={s} value={s}>{s}</option>)}
      </SelectField>
      <button type="submit" disabled={update.isPending || choice === incident.severity}>Change severity</button>
      <ErrorDisplay error={update.error} />
    </form>
  );
}

/** A note for the timeline: plain text, kept as written. */
export function NoteForm({ incident }: { incident: Incident }) {
  const add = useAddNote(incident.id);
  const [text, setText] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(text, { onSuccess: () => setText('') });
  };
  return (
    <form onSubmit={submit} noValidate>
      <TextAreaField label="Add a note" rows={3} value={text} onChange={(e) => setText(e.target.value)} errors={fieldErrors(add.error, 'text')}
        hint="What you found or did; shown to everyone as plain text." />
      <ErrorDisplay error={add.error} fields={['text']} />
      <div className="actions start"><button type="submit" disabled={add.isPending || text.trim() === ''}>Add note</button></div>
    </form>
  );
}

/** Acknowledged for a chosen time, then triggered again and paging, unless answered by then. */
export function SnoozeForm({ incident }: { incident: Incident }) {
  const snooze = useSnooze(incident.id);
  const [minutes, setMinutes] = useState(60);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    snooze.mutate(minutes);
  };
  return (
    <form className="inline-add" onSubmit={submit}>
      <SelectField label="Snooze for" value={minutes} onChange={(e) => setMinutes(Number(e.target.value))}
        hint="Acknowledged until then; it pages again at the end unless resolved.">
        {SNOOZE_CHOICES.map((m) => <option key={m} value={m}>{snoozeLabel(m)}</option>)}
      </SelectField>
      <button type="submit" className="secondary" disabled={snooze.isPending}>Snooze</button>
      <ErrorDisplay error={snooze.error} />
    </form>
  );
}

/** Page someone now: a member, or an escalation policy (which escalates the incident if it is not escalating). */
export function ResponderForm({ incident }: { incident: Incident }) {
  const members = useMembers().data?.data ?? [];
  const policies = usePolicyChoices(useCan('escalations:read')).data?.data ?? [];
  const add = useAddResponder(incident.id);
  const [choice, setChoice] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const [kind, id = ''] = choice.split(':');
    add.mutate(kind === 'policy' ? { policyId: id } : { userId: id }, { onSuccess: () => setChoice('') });
  };
  return (
    <form className="inline-add" onSubmit={submit}>
      <SelectField label="Add a responder" value={choice} onChange={(e) => setChoice(e.target.value)} hint="Paged now, by their own contact methods.">
        <option value="">Choose who to page</option>
        <optgroup label="Members">{members.map((u) => <option key={u.id} value={`user:${u.id}`}>{u.name} ({u.email})</option>)}</optgroup>
        {policies.length > 0 && <optgroup label="Escalation policies">{policies.map((p) => <option key={p.id} value={`policy:${p.id}`}>{p.name}</option>)}</optgroup>}
      </SelectField>
      <button type="submit" disabled={add.isPending || choice === ''}>Page now</button>
      <ErrorDisplay error={add.error} />
      {add.isSuccess && <p role="status" className="muted">Paging now: the timeline shows who and how.</p>}
    </form>
  );
}

/** The escalation's next step at once; the API says in words when nobody is being paged. */
export function EscalateNow({ incident }: { incident: Incident }) {
  const escalate = useEscalateNow(incident.id);
  return (
    <div className="inline-add">
      <button type="button" className="secondary" disabled={escalate.isPending} onClick={() => escalate.mutate()}>Escalate now</button>
      <small className="hint">Pages the escalation's next step without waiting.</small>
      <ErrorDisplay error={escalate.error} />
      {escalate.isSuccess && <p role="status" className="muted">The next step is paging now.</p>}
    </div>
  );
}

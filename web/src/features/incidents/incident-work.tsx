import { useState, type FormEvent } from 'react';
import { useMembers } from '../../api/actors';
import type { Incident, Severity } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextAreaField } from '../../components/form';
import { useSession } from '../auth/session';
import { useAddNote, useUpdateIncident } from './incidents-api';

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

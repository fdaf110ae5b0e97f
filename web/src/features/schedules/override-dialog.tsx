import { useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import type { User } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { fromLocalInput, localInput } from '../../components/zone';
import type { RangePick } from './calendar';

interface Props {
  pick: RangePick | null;
  zone: string;
  users: User[];
  /** Index the new override takes in the schedule's list: where the API's errors point. */
  index: number;
  saving: boolean;
  error: unknown;
  onSave: (o: { userId: string; startsAt: string; endsAt: string }) => void;
  onCancel: () => void;
}

/** Who covers a range instead of the rotation: person, start and end (prefilled from the calendar) in the zone shown. */
export function OverrideDialog({ pick, zone, users, index, saving, error, onSave, onCancel }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const [userId, setUserId] = useState('');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  // A layout effect: the fields are filled before the dialog is first drawn, where an effect would open it empty
  // for a frame (a test reading the prefilled start then saw '').
  useLayoutEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (pick) {
      setStart(localInput(pick.start, zone));
      setEnd(localInput(pick.end, zone));
      setUserId((u) => u || (users[0]?.id ?? ''));
      setProblem(null);
      if (!d.open) d.showModal();
    } else if (d.open) d.close();
  }, [pick, zone, users]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const s = fromLocalInput(start, zone);
    const t = fromLocalInput(end, zone);
    if (Number.isNaN(s) || Number.isNaN(t)) return setProblem('Start and end must be dates and times.');
    if (!(t > s)) return setProblem('The end must be after the start.');
    setProblem(null);
    onSave({ userId, startsAt: new Date(s).toISOString(), endsAt: new Date(t).toISOString() });
  };
  const at = `overrides/${index}`;
  return (
    <dialog ref={ref} aria-labelledby="override-title" onCancel={(e) => { e.preventDefault(); onCancel(); }}>
      <form onSubmit={submit} noValidate>
        <h2 id="override-title">Add an override</h2>
        <p className="muted">The person chosen is on call for this range instead of the rotation. Times in {zone}.</p>
        <SelectField label="Person" value={userId} onChange={(e) => setUserId(e.target.value)} errors={fieldErrors(error, `${at}/userId`)}>
          {users.map((u) => <option key={u.id} value={u.id}>{u.name}</option>)}
        </SelectField>
        <TextField label="Start" type="datetime-local" value={start} onChange={(e) => setStart(e.target.value)} errors={fieldErrors(error, `${at}/startsAt`)} />
        <TextField label="End" type="datetime-local" value={end} onChange={(e) => setEnd(e.target.value)} errors={fieldErrors(error, `${at}/endsAt`)} />
        {problem && <p className="field-errors" role="alert">{problem}</p>}
        <ErrorDisplay error={error} fields={[at]} />
        <div className="actions">
          <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
          <button type="submit" disabled={saving || !userId}>Save override</button>
        </div>
      </form>
    </dialog>
  );
}

import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import type { User, Schedule } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextAreaField, TextField } from '../../components/form';
import { PreviewFrame } from '../../components/preview-frame';
import { dateTimeIn } from '../../components/zone';
import { ZoneField } from '../../components/zone-field';
import { usePeople } from './people';
import { useSchedulePreview } from './schedules-api';
import { bodyOf, DAYS, newLayer, newRestriction, ROTATIONS, type LayerForm, type ScheduleForm } from './schedule-form';
import { TableWrap } from '../../components/table-wrap';

const ROTATION_LABELS: Record<LayerForm['rotation'], string> = {
  hourly: 'Hourly', daily: 'Daily', weekly: 'Weekly', custom: 'Custom (hours per shift)',
};

interface LayerProps {
  layer: LayerForm;
  index: number;
  count: number;
  users: User[];
  nameOf: (id: string) => string;
  timezone: string;
  error: unknown;
  onChange: (l: LayerForm) => void;
  onMove: (step: -1 | 1) => void;
  onRemove: () => void;
}

function move<T>(list: T[], i: number, step: number): T[] {
  const out = [...list];
  const j = i + step;
  if (j < 0 || j >= out.length) return out;
  [out[i], out[j]] = [out[j] as T, out[i] as T];
  return out;
}

function LayerFields({ layer: l, index, count, users, nameOf, timezone, error, onChange, onMove, onRemove }: LayerProps) {
  const at = `layers/${index}`;
  const [adding, setAdding] = useState('');
  const set = (patch: Partial<LayerForm>) => onChange({ ...l, ...patch });
  const addable = users.filter((u) => !l.users.includes(u.id));
  const chosen = adding || addable[0]?.id || '';
  return (
    <fieldset className="layer" data-testid={`layer-${index}`}>
      <legend>Layer {index + 1}{count > 1 && index === count - 1 ? ' (beats the ones above)' : ''}</legend>
      <div className="grid-2">
        <TextField label="Layer name" value={l.name} onChange={(e) => set({ name: e.target.value })} errors={fieldErrors(error, `${at}/name`)} />
        <SelectField label="Rotation" value={l.rotation} onChange={(e) => set({ rotation: e.target.value as LayerForm['rotation'] })} errors={fieldErrors(error, `${at}/rotation`)}>
          {ROTATIONS.map((r) => <option key={r} value={r}>{ROTATION_LABELS[r]}</option>)}
        </SelectField>
        {l.rotation === 'custom' && (
          <TextField label="Hours per shift" type="number" min={1} step={1} inputMode="numeric" value={l.shiftHours}
            onChange={(e) => set({ shiftHours: e.target.value })} errors={fieldErrors(error, `${at}/shiftHours`)} />
        )}
        <TextField label="First shift starts" type="datetime-local" value={l.start} onChange={(e) => set({ start: e.target.value })}
          errors={fieldErrors(error, `${at}/startsAt`)} hint={`In ${timezone}; each handoff keeps this time of day.`} />
      </div>
      <h3>People, in turn</h3>
      {l.users.length === 0 ? <p className="muted">Nobody yet: add at least one person.</p> : (
        <ol className="members">
          {l.users.map((u, i) => (
            <li key={u}>
              <span>{nameOf(u)}</span>
              <button type="button" className="secondary small" disabled={i === 0} onClick={() => set({ users: move(l.users, i, -1) })} aria-label={`Move ${nameOf(u)} up`}>Up</button>
              <button type="button" className="secondary small" disabled={i === l.users.length - 1} onClick={() => set({ users: move(l.users, i, 1) })} aria-label={`Move ${nameOf(u)} down`}>Down</button>
              <button type="button" className="secondary small" onClick={() => set({ users: l.users.filter((x) => x !== u) })} aria-label={`Remove ${nameOf(u)}`}>Remove</button>
            </li>
          ))}
        </ol>
      )}
      {fieldErrors(error, `${at}/users`).map((m) => <p key={m} className="field-errors" role="alert">People {m}</p>)}
      {addable.length > 0 && (
        <div className="inline-add">
          <SelectField label={`Add a person to layer ${index + 1}`} value={chosen} onChange={(e) => setAdding(e.target.value)}>
            {addable.map((u) => <option key={u.id} value={u.id}>{u.name}</option>)}
          </SelectField>
          <button type="button" className="secondary" onClick={() => { set({ users: [...l.users, chosen] }); setAdding(''); }}>Add person</button>
        </div>
      )}
      <h3>Restrictions</h3>
      <p className="hint">Without any, the layer covers all the time. With some, only inside them (times in {timezone}; an end at or before the start runs overnight).</p>
      {l.restrictions.map((r, ri) => (
        <fieldset key={ri} className="restriction">
          <legend>Window {ri + 1}</legend>
          <div className="days">
            {DAYS.map((d) => (
              <label key={d} className="check">
                <input type="checkbox" checked={r.days.includes(d)}
                  onChange={(e) => set({ restrictions: l.restrictions.map((x, k) => (k !== ri ? x : { ...x, days: e.target.checked ? DAYS.filter((y) => y === d || x.days.includes(y)) : x.days.filter((y) => y !== d) })) })} />
                {d}
              </label>
            ))}
          </div>
          <div className="inline-add">
            <TextField label="From" type="time" value={r.from} errors={fieldErrors(error, `${at}/restrictions/${ri}/from`)}
              onChange={(e) => set({ restrictions: l.restrictions.map((x, k) => (k === ri ? { ...x, from: e.target.value } : x)) })} />
            <TextField label="To" type="time" value={r.to} errors={fieldErrors(error, `${at}/restrictions/${ri}/to`)}
              onChange={(e) => set({ restrictions: l.restrictions.map((x, k) => (k === ri ? { ...x, to: e.target.value } : x)) })} />
            <button type="button" className="secondary small" onClick={() => set({ restrictions: l.restrictions.filter((_, k) => k !== ri) })}>Remove window</button>
          </div>
          {fieldErrors(error, `${at}/restrictions/${ri}/days`).map((m) => <p key={m} className="field-errors" role="alert">Days {m}</p>)}
        </fieldset>
      ))}
      <div className="actions start">
        <button type="button" className="secondary small" onClick={() => set({ restrictions: [...l.restrictions, newRestriction()] })}>Add restriction</button>
        <button type="button" className="secondary small" disabled={index === 0} onClick={() => onMove(-1)}>Move layer up</button>
        <button type="button" className="secondary small" disabled={index === count - 1} onClick={() => onMove(1)}>Move layer down</button>
        <button type="button" className="secondary small" onClick={onRemove}>Remove layer</button>
      </div>
    </fieldset>
  );
}

function PreviewPanel({ body, overrides, nameOf, untouched }: { body: ReturnType<typeof bodyOf>; overrides: Schedule['overrides']; nameOf: (id: string) => string; untouched: boolean }) {
  const preview = useSchedulePreview({ ...body, name: body.name || 'Preview', overrides });
  const zone = body.timezone ?? 'UTC';
  return (
    <PreviewFrame query={preview} testId="schedule-preview" untouched={untouched}>
      {({ data: p }) => (
        <>
          <p>
            On call now: <strong>{p.onCall.user?.name ?? 'nobody'}</strong>
            {p.onCall.endsAt ? `, until ${dateTimeIn(p.onCall.endsAt, zone)}` : ''}.
          </p>
          {p.shifts.length === 0 ? <p className="muted">Nobody is on call in the next 7 days.</p> : (
            <TableWrap label="Shifts">
              <table>
                <caption className="sr-only">The next 7 days ({zone})</caption>
                <thead><tr><th scope="col">Who</th><th scope="col">From</th><th scope="col">Until</th><th scope="col">Layer</th></tr></thead>
                <tbody>
                  {p.shifts.map((s) => (
                    <tr key={`${s.startsAt}${s.userId}${s.source}`}>
                      <td>{nameOf(s.userId)}</td><td>{dateTimeIn(s.startsAt, zone)}</td><td>{dateTimeIn(s.endsAt, zone)}</td>
                      <td>{s.source === 'override' ? 'override' : s.layerName}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </>
      )}
    </PreviewFrame>
  );
}

interface Props {
  initial: ScheduleForm;
  /** The stored overrides, kept as they are and shown in the preview. */
  overrides: Schedule['overrides'];
  saving: boolean;
  error: unknown;
  cancelTo: string;
  submitLabel: string;
  onSave: (body: ReturnType<typeof bodyOf>) => void;
  /** Without the right to change schedules: the form and its preview, no saving. */
  readOnly?: boolean;
}

/** Name, zone and layers of a schedule, with the server's preview of the next shifts beside them. */
export function ScheduleEditor({ initial, overrides, saving, error, cancelTo, submitLabel, onSave, readOnly = false }: Props) {
  const people = usePeople();
  const [form, setForm] = useState(initial);
  const body = useMemo(() => bodyOf(form), [form]);
  const setLayer = (i: number, l: LayerForm) => setForm({ ...form, layers: form.layers.map((x, j) => (j === i ? l : x)) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSave(body);
  };
  return (
    <div className="schedule-editor">
      <form className="panel" onSubmit={submit} noValidate aria-label="Schedule">
        <TextField label="Name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} errors={fieldErrors(error, 'name')} />
        <TextAreaField label="Description" rows={2} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} errors={fieldErrors(error, 'description')} />
        <ZoneField value={form.timezone} onChange={(timezone) => setForm({ ...form, timezone })} errors={fieldErrors(error, 'timezone')}
          hint="IANA name such as Europe/Berlin: rotations and restrictions follow its wall clock." />
        <label className="check">
          <input type="checkbox" checked={form.handoffNotices} onChange={(e) => setForm({ ...form, handoffNotices: e.target.checked })} />
          {' '}Email each person when their shift starts (handoff notice)
        </label>
        {form.layers.map((l, i) => (
          <LayerFields key={i} layer={l} index={i} count={form.layers.length} users={people.users} nameOf={people.nameOf} timezone={form.timezone} error={error}
            onChange={(x) => setLayer(i, x)} onMove={(step) => setForm({ ...form, layers: move(form.layers, i, step) })}
            onRemove={() => setForm({ ...form, layers: form.layers.filter((_, j) => j !== i) })} />
        ))}
        <button type="button" className="secondary" onClick={() => setForm({ ...form, layers: [...form.layers, newLayer(form.layers.length + 1, form.timezone, Date.now())] })}>
          Add layer
        </button>
        <ErrorDisplay error={error ?? people.error} fields={['name', 'description', 'timezone', 'handoffNotices', 'layers']} />
        <div className="actions">
          <Link className="button secondary" to={cancelTo}>{readOnly ? 'Back' : 'Cancel'}</Link>
          {!readOnly && <button type="submit" disabled={saving}>{submitLabel}</button>}
        </div>
      </form>
      <section className="panel" aria-labelledby="preview-title">
        <h2 id="preview-title">Preview</h2>
        <PreviewPanel body={body} overrides={overrides} nameOf={people.nameOf} untouched={form === initial} />
      </section>
    </div>
  );
}

import { useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextAreaField, TextField } from '../../components/form';
import { PreviewFrame } from '../../components/preview-frame';
import { SeverityBadge, StatusBadge } from '../../components/badges';
import { ZonedTime } from '../../components/zoned-time';
import { ZoneField } from '../../components/zone-field';
import { useClients } from '../../api/clients';
import { OPS as OP_WORDS } from '../workflows/workflow-fns';
import { useWindowPreview } from './suppression-api';
import { bodyOf, DAY_NAMES, OPS, REPEATS, WEEKDAYS, type MatcherForm, type Repeat, type WindowForm } from './window-form';

const REPEAT_LABELS: Record<Repeat, string> = { none: 'Once', daily: 'Daily', weekly: 'Weekly on chosen days', monthly: 'Monthly (on the start\'s day)', raw: 'Custom RRULE' };
const FIELDS = ['title', 'severity', 'status', 'source', 'description', 'fingerprint', 'integrationId', 'labels.', 'annotations.'];

function Matchers({ rows, error, onChange }: { rows: MatcherForm[]; error: unknown; onChange: (rows: MatcherForm[]) => void }) {
  const set = (i: number, patch: Partial<MatcherForm>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset>
      <legend>Matchers</legend>
      <p className="hint">All must hold. None: the window holds every alert (of its client, if it has one).</p>
      <datalist id="matcher-fields">{FIELDS.map((f) => <option key={f} value={f} />)}</datalist>
      {rows.map((m, i) => (
        <div key={i} className="matcher-row">
          <TextField label={`Field ${i + 1}`} list="matcher-fields" value={m.field} onChange={(e) => set(i, { field: e.target.value })} errors={fieldErrors(error, `matchers/${i}/field`)} />
          <SelectField label={`Operator ${i + 1}`} value={m.op} onChange={(e) => set(i, { op: e.target.value as MatcherForm['op'] })} errors={fieldErrors(error, `matchers/${i}/op`)}>
            {OP_WORDS.filter((o) => (OPS as readonly string[]).includes(o.value)).map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
          </SelectField>
          {m.op === 'exists' ? (
            <SelectField label={`Value ${i + 1}`} value={m.value === 'false' ? 'false' : 'true'} onChange={(e) => set(i, { value: e.target.value })}>
              <option value="true">is present</option>
              <option value="false">is absent</option>
            </SelectField>
          ) : (
            <TextField label={`Value ${i + 1}`} value={m.value} onChange={(e) => set(i, { value: e.target.value })} errors={fieldErrors(error, `matchers/${i}/value`)}
              {...((m.op === 'in' || m.op === 'nin') && { hint: 'Comma-separated' })} />
          )}
          <button type="button" className="secondary small" onClick={() => onChange(rows.filter((_, j) => j !== i))} aria-label={`Remove matcher ${i + 1}`}>Remove</button>
        </div>
      ))}
      <button type="button" className="secondary small" onClick={() => onChange([...rows, { field: 'labels.', op: 'eq', value: '' }])}>Add matcher</button>
    </fieldset>
  );
}

function Preview({ form, untouched }: { form: WindowForm; untouched: boolean }) {
  const preview = useWindowPreview(useMemo(() => ({ ...bodyOf(form), name: form.name || 'Preview' }), [form]));
  return (
    <PreviewFrame query={preview} testId="window-preview" untouched={untouched}>
      {({ data: p }) => (
        <>
          <p>{p.active ? <strong>In force now.</strong> : 'Not in force now.'}</p>
          <h3>Next occurrences</h3>
          {p.nextOccurrences.length === 0 ? <p className="muted">None: the window is over.</p> : (
            <ol className="occurrences" data-testid="next-occurrences">
              {p.nextOccurrences.map((o) => (
                <li key={o.startsAt}>
                  <ZonedTime at={o.startsAt} until={o.endsAt} zone={form.timezone} />
                </li>
              ))}
            </ol>
          )}
          <h3>Open alerts it would hold</h3>
          {p.alerts.length === 0 ? <p className="muted">No open alert matches.</p> : (
            <ul className="held" data-testid="held-alerts">
              {p.alerts.map((a) => (
                <li key={a.id}><SeverityBadge value={a.severity} /> <StatusBadge value={a.status} /> <Link to={`/alerts/${a.id}`}>{a.title}</Link></li>
              ))}
            </ul>
          )}
          {!p.complete && <p className="muted">There may be more: the preview shows the first {p.alerts.length} among the newest open alerts.</p>}
        </>
      )}
    </PreviewFrame>
  );
}

interface Props {
  initial: WindowForm;
  saving: boolean;
  error: unknown;
  submitLabel: string;
  onSave: (form: WindowForm) => void;
  extraActions?: ReactNode;
  /** Without the right to change windows: the form and its preview, no saving. */
  readOnly?: boolean;
}

/** When (once or recurring, in a zone), which alerts (matchers, client), and the server's preview of both. */
export function WindowEditor({ initial, saving, error, submitLabel, onSave, extraActions, readOnly = false }: Props) {
  const [form, setForm] = useState(initial);
  const clients = useClients();
  const set = (patch: Partial<WindowForm>) => setForm({ ...form, ...patch });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSave(form);
  };
  return (
    <div className="schedule-editor">
      <form className="panel" onSubmit={submit} noValidate aria-label="Suppression window">
        <TextField label="Name" required value={form.name} onChange={(e) => set({ name: e.target.value })} errors={fieldErrors(error, 'name')} />
        <TextAreaField label="Description" rows={2} value={form.description} onChange={(e) => set({ description: e.target.value })} errors={fieldErrors(error, 'description')} />
        <ZoneField value={form.timezone} onChange={(timezone) => set({ timezone })} errors={fieldErrors(error, 'timezone')}
          hint="Start, end and repeats follow this zone's wall clock." />
        <div className="grid-2">
          <TextField label="Starts" type="datetime-local" value={form.start} onChange={(e) => set({ start: e.target.value })} errors={fieldErrors(error, 'startsAt')} />
          <TextField label="Ends" type="datetime-local" value={form.end} onChange={(e) => set({ end: e.target.value })} errors={fieldErrors(error, 'endsAt')}
            hint={form.repeat === 'none' ? undefined : 'Each occurrence lasts from start to end.'} />
        </div>
        <SelectField label="Repeats" value={form.repeat} onChange={(e) => set({ repeat: e.target.value as Repeat })}>
          {REPEATS.map((r) => <option key={r} value={r}>{REPEAT_LABELS[r]}</option>)}
        </SelectField>
        {(form.repeat === 'daily' || form.repeat === 'weekly' || form.repeat === 'monthly') && (
          <TextField label={`Every how many ${form.repeat === 'daily' ? 'days' : form.repeat === 'weekly' ? 'weeks' : 'months'}`} type="number" min={1} max={999}
            value={form.interval} onChange={(e) => set({ interval: e.target.value })} />
        )}
        {form.repeat === 'weekly' && (
          <fieldset>
            <legend>On</legend>
            <div className="days">
              {WEEKDAYS.map((d) => (
                <label key={d} className="check">
                  <input type="checkbox" checked={form.weekdays.includes(d)}
                    onChange={(e) => set({ weekdays: WEEKDAYS.filter((x) => (x === d ? e.target.checked : form.weekdays.includes(x))) })} />
                  {DAY_NAMES[d]}
                </label>
              ))}
            </div>
            <p className="hint">The start must fall on one of these days.</p>
          </fieldset>
        )}
        {form.repeat === 'raw' && (
          <TextField label="RRULE" value={form.raw} onChange={(e) => set({ raw: e.target.value })} placeholder="FREQ=MONTHLY;BYDAY=1SU"
            hint="RFC 5545, without DTSTART or TZID; the start must be its first occurrence." />
        )}
        {fieldErrors(error, 'recurrence').map((m) => <p key={m} className="field-errors" role="alert">Repeats: {m}</p>)}
        <SelectField label="Client" value={form.clientId} onChange={(e) => set({ clientId: e.target.value })} errors={fieldErrors(error, 'clientId')}>
          <option value="">Any client</option>
          {(clients.data?.data ?? []).map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
        </SelectField>
        <Matchers rows={form.matchers} error={error} onChange={(matchers) => set({ matchers })} />
        <ErrorDisplay error={error} fields={['name', 'description', 'timezone', 'startsAt', 'endsAt', 'recurrence', 'clientId', 'matchers']} />
        <div className="actions">
          {extraActions}
          <Link className="button secondary" to="/suppression">{readOnly ? 'Back' : 'Cancel'}</Link>
          {!readOnly && <button type="submit" disabled={saving}>{submitLabel}</button>}
        </div>
      </form>
      <section className="panel" aria-labelledby="window-preview-title">
        <h2 id="window-preview-title">Preview</h2>
        <Preview form={form} untouched={form === initial} />
      </section>
    </div>
  );
}

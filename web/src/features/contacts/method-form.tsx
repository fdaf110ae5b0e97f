import { useState, type FormEvent } from 'react';
import type { ChannelInfo } from '../../api/types';
import { ChannelFields } from '../../components/channel-fields';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import type { MethodDraft } from './contacts-fns';

interface Props {
  heading: string;
  initial: MethodDraft;
  /** The channels a member may be paged by (the catalogue's `contact` ones). */
  channels: ChannelInfo[];
  /** Editing: the type is fixed (a new type is a new method). */
  fixedType?: boolean;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit: (draft: MethodDraft) => void;
  onCancel: () => void;
}

/** A contact method's form: the type picker shows that type's target fields, as the channel catalogue declares them. */
export function MethodForm({ heading, initial, channels, fixedType, submitLabel, busy, error, onSubmit, onCancel }: Props) {
  const [draft, setDraft] = useState(initial);
  const info = channels.find((c) => c.type === draft.type);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(draft);
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="method-form-head">
      <h2 id="method-form-head">{heading}</h2>
      {fixedType ? <p className="muted">Type: {info?.label ?? draft.type}</p> : (
        <SelectField label="Type" value={draft.type} errors={fieldErrors(error, 'type')} hint={info?.about}
          onChange={(e) => setDraft({ ...draft, type: e.target.value, fields: {} })}>
          {channels.map((c) => <option key={c.type} value={c.type} disabled={!c.available}>{c.available ? c.label : `${c.label} (off)`}</option>)}
        </SelectField>
      )}
      {info && !info.available && <p className="hint" role="note">{info.label} is off: {info.unavailable}</p>}
      {info && <ChannelFields info={info} target={draft.fields} path="target" error={error} onChange={(fields) => setDraft({ ...draft, fields })} />}
      <TextField label="Label" hint="Optional: your name for it (default: the address, host or topic)." value={draft.label} maxLength={100}
        errors={fieldErrors(error, 'label')} onChange={(e) => setDraft({ ...draft, label: e.target.value })} />
      <ErrorDisplay error={error} fields={['type', 'label', ...(info?.fields ?? []).map((f) => `target/${f.name}`)]} />
      <div className="actions start">
        <button type="submit" disabled={busy}>{submitLabel}</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

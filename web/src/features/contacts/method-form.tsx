import { useState, type FormEvent } from 'react';
import type { ContactType } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { CONTACT_TYPES, TYPE_ORDER, type MethodDraft } from './contacts-fns';

interface Props {
  heading: string;
  initial: MethodDraft;
  /** Editing: the type is fixed (a new type is a new method). */
  fixedType?: boolean;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit: (draft: MethodDraft) => void;
  onCancel: () => void;
}

/** A contact method's form: the type picker shows that type's target fields. */
export function MethodForm({ heading, initial, fixedType, submitLabel, busy, error, onSubmit, onCancel }: Props) {
  const [draft, setDraft] = useState(initial);
  const type = CONTACT_TYPES[draft.type];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(draft);
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="method-form-head">
      <h2 id="method-form-head">{heading}</h2>
      {fixedType ? <p className="muted">Type: {type.name}</p> : (
        <SelectField label="Type" value={draft.type} errors={fieldErrors(error, 'type')}
          onChange={(e) => setDraft({ ...draft, type: e.target.value as ContactType, fields: {} })}>
          {TYPE_ORDER.map((t) => <option key={t} value={t}>{CONTACT_TYPES[t].name}</option>)}
        </SelectField>
      )}
      {type.fields.map((f) => (
        <TextField key={`${draft.type}-${f.name}`} label={f.label} {...(f.hint && { hint: f.hint })} required={!f.optional}
          type={f.secret ? 'password' : f.inputType ?? 'text'} autoComplete="off" spellCheck={false}
          value={draft.fields[f.name] ?? ''} errors={fieldErrors(error, `target/${f.name}`)}
          onChange={(e) => setDraft({ ...draft, fields: { ...draft.fields, [f.name]: e.target.value } })} />
      ))}
      <TextField label="Label" hint="Optional: your name for it (default: the address, host or topic)." value={draft.label} maxLength={100}
        errors={fieldErrors(error, 'label')} onChange={(e) => setDraft({ ...draft, label: e.target.value })} />
      <ErrorDisplay error={error} fields={['type', 'label', ...type.fields.map((f) => `target/${f.name}`)]} />
      <div className="actions start">
        <button type="submit" disabled={busy}>{submitLabel}</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

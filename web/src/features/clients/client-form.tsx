import { useState, type FormEvent } from 'react';
import type { Client, CreateClientBody } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, TextAreaField, TextField } from '../../components/form';

interface Props {
  title: string;
  initial: Client | null;
  submitLabel: string;
  onSubmit: (body: CreateClientBody) => void;
  onCancel: () => void;
  busy: boolean;
  error: unknown;
}

/** A slug from a name, as a suggestion while the slug has not been typed: lower-case letters, digits and dashes. */
export const slugOf = (name: string): string => name.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100);

/** Create or edit a client: name, slug (what labels.client matches), contact email, notes. */
export function ClientForm({ title, initial, submitLabel, onSubmit, onCancel, busy, error }: Props) {
  const [name, setName] = useState(initial?.name ?? '');
  const [slug, setSlug] = useState(initial?.slug ?? '');
  const [slugTyped, setSlugTyped] = useState(initial !== null);
  const [contactEmail, setContactEmail] = useState(initial?.contactEmail ?? '');
  const [notes, setNotes] = useState(initial?.notes ?? '');
  const [recipients, setRecipients] = useState((initial?.reportRecipients ?? []).join(', '));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit({
      name, slug, contactEmail: contactEmail.trim() === '' ? null : contactEmail.trim(), notes: notes.trim() === '' ? null : notes,
      reportRecipients: recipients.split(/[\s,;]+/).map((r) => r.trim()).filter(Boolean),
    });
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="client-form-title">
      <h2 id="client-form-title">{title}</h2>
      <TextField label="Name" required value={name} errors={fieldErrors(error, 'name')}
        onChange={(e) => { setName(e.target.value); if (!slugTyped) setSlug(slugOf(e.target.value)); }} />
      <TextField label="Slug" required value={slug} errors={fieldErrors(error, 'slug')} onChange={(e) => { setSlug(e.target.value); setSlugTyped(true); }}
        hint="Alerts whose labels.client equals it belong to this client. Lower-case letters, digits, - _ and ." />
      <TextField label="Contact email" type="email" value={contactEmail} errors={fieldErrors(error, 'contactEmail')} onChange={(e) => setContactEmail(e.target.value)} />
      <TextAreaField label="Notes" rows={3} value={notes} errors={fieldErrors(error, 'notes')} onChange={(e) => setNotes(e.target.value)} />
      <TextField label="Monthly report to" type="text" value={recipients} errors={fieldErrors(error, 'reportRecipients')} onChange={(e) => setRecipients(e.target.value)}
        hint="Email addresses, comma-separated: the client's report of each month goes to them on the 1st. Empty: nobody." />
      <ErrorDisplay error={error} fields={['name', 'slug', 'contactEmail', 'notes', 'reportRecipients']} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
        <button type="submit" disabled={busy}>{submitLabel}</button>
      </div>
    </form>
  );
}

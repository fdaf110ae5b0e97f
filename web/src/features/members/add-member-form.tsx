import { useState, type FormEvent } from 'react';
import type { CreatedUser, CreateUserBody, Role } from '../../api/types';
import { CopyButton } from '../../components/copy-button';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { formatTime } from '../../components/format';

/** The one-time link, to hand over: the API shows it only in this answer. */
export function LinkNotice({ created, onDone }: { created: CreatedUser; onDone: () => void }) {
  const link = created.setPasswordLink;
  return (
    <section className="panel notice" aria-labelledby="link-made">
      <h2 id="link-made">Set-password link for {created.name}</h2>
      <p role="alert">
        <strong>Give this link to {created.email}.</strong> It works once, until {formatTime(link.expiresAt)}, and is not shown again.
        {link.emailed ? ' It was also emailed to them.' : ' It was not emailed (no mail server is set up, or it refused).'}
      </p>
      <div className="copy-row">
        <code className="break" data-testid="set-password-link">{link.url}</code>
        <CopyButton text={link.url} label="Copy link" />
      </div>
      <button type="button" onClick={onDone}>Done</button>
    </section>
  );
}

interface Props {
  roles: Role[];
  onAdd: (input: CreateUserBody) => void;
  onCancel: () => void;
  error: unknown;
  busy: boolean;
}

export function AddMemberForm({ roles, onAdd, onCancel, error, busy }: Props) {
  const [form, setForm] = useState<CreateUserBody>({ email: '', name: '', role: 'member' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onAdd(form);
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="add-member">
      <h2 id="add-member">Add a member</h2>
      <TextField label="Email" type="email" required value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} errors={fieldErrors(error, 'email')} />
      <TextField label="Name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} errors={fieldErrors(error, 'name')} />
      <SelectField label="Role" value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })} errors={fieldErrors(error, 'role')}
        hint="Members see everything and handle alerts and incidents; admins also change settings and members; owners also manage owners.">
        {roles.map((r) => <option key={r} value={r}>{r}</option>)}
      </SelectField>
      <ErrorDisplay error={error} fields={['email', 'name', 'role']} />
      <div className="actions">
        <button type="submit" disabled={busy}>Add member</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

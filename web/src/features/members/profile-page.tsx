import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, TextField } from '../../components/form';
import { Page } from '../../components/page';
import { useSession } from '../auth/session';
import { ZoneField } from '../../components/zone-field';
import { useChangePassword, useMe, useRename, useSetMyZone } from './members-api';

function NameForm() {
  const session = useSession();
  const rename = useRename();
  const [name, setName] = useState(session.user.name);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate(name);
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="name-head">
      <h2 id="name-head">Name</h2>
      <TextField label="Your name" required autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} errors={fieldErrors(rename.error, 'name')} />
      <ErrorDisplay error={rename.error} fields={['name']} />
      {rename.isSuccess && <p role="status">Saved.</p>}
      <button type="submit" disabled={rename.isPending}>Save name</button>
    </form>
  );
}

function ZoneForm({ current }: { current: string | null }) {
  const save = useSetMyZone();
  const [zone, setZone] = useState(current ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(zone.trim() === '' ? null : zone.trim());
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="zone-head">
      <h2 id="zone-head">Your time zone</h2>
      <ZoneField value={zone} onChange={setZone} errors={fieldErrors(save.error, 'timezone')}
        hint="Pages outside 09:00–18:00 Monday to Friday on your clock count as nights and weekends in Analytics. Empty: the organization's zone." />
      <ErrorDisplay error={save.error} fields={['timezone']} />
      {save.isSuccess && <p role="status">Saved.</p>}
      <button type="submit" disabled={save.isPending}>Save time zone</button>
    </form>
  );
}

function PasswordForm() {
  const change = useChangePassword();
  const [form, setForm] = useState({ currentPassword: '', newPassword: '' });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    change.mutate(form, { onSuccess: () => setForm({ currentPassword: '', newPassword: '' }) });
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="password-head">
      <h2 id="password-head">Password</h2>
      <TextField label="Current password" type="password" required autoComplete="current-password" value={form.currentPassword}
        onChange={(e) => setForm({ ...form, currentPassword: e.target.value })} errors={fieldErrors(change.error, 'currentPassword')} />
      <TextField label="New password" type="password" required autoComplete="new-password" value={form.newPassword} hint="At least 12 characters."
        onChange={(e) => setForm({ ...form, newPassword: e.target.value })} errors={fieldErrors(change.error, 'newPassword')} />
      <ErrorDisplay error={change.error} fields={['currentPassword', 'newPassword']} />
      {change.isSuccess && <p role="status">Password changed. Your other sessions were signed out.</p>}
      <button type="submit" disabled={change.isPending}>Change password</button>
    </form>
  );
}

export default function ProfilePage() {
  const session = useSession();
  const me = useMe();
  return (
    <Page title="Your profile">
      <p className="muted">{session.user.email} · {session.user.role} of {session.organization.name}</p>
      <p><Link to="/profile/contact-methods">Contact methods and notification rules</Link>: how you are paged.</p>
      <div className="grid-2">
        <NameForm />
        <PasswordForm />
        {me.data && <ZoneForm current={me.data.data.timezone} />}
      </div>
    </Page>
  );
}

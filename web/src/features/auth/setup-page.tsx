import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, TextField } from '../../components/form';
import { Loading } from '../../components/page';
import type { SetupBody } from '../../api/types';
import { setup, setupNeeded } from './auth-api';
import { useReplaceSession } from './session';

const FIELDS = ['organizationName', 'name', 'email', 'password', 'token'] as const;

export default function SetupPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const navigate = useNavigate();
  const replace = useReplaceSession();
  const needed = useQuery({ queryKey: ['setup-needed'], queryFn: setupNeeded });
  const [form, setForm] = useState({ organizationName: '', name: '', email: '', password: '' });
  const m = useMutation({
    mutationFn: (input: SetupBody) => setup(input),
    onSuccess: (s) => {
      replace(s);
      navigate('/integrations', { replace: true });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    m.mutate({ token, ...form });
  };
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });

  let body;
  if (needed.isPending) body = <Loading rows={4} />;
  else if (needed.data === false) body = <p>This AlertFlow is already set up. <Link to="/sign-in">Sign in</Link>.</p>;
  else if (!token) body = <p>Open the setup link the server printed in its log at its first start (it ends in <code>/setup?token=…</code>).</p>;
  else {
    body = (
      <>
        <p>Create your organization and its owner account. This link works once.</p>
        <TextField label="Organization name" required value={form.organizationName} onChange={set('organizationName')}
          errors={fieldErrors(m.error, 'organizationName')} />
        <TextField label="Your name" required autoComplete="name" value={form.name} onChange={set('name')} errors={fieldErrors(m.error, 'name')} />
        <TextField label="Email" type="email" required autoComplete="username" value={form.email} onChange={set('email')}
          errors={fieldErrors(m.error, 'email')} />
        <TextField label="Password" type="password" required autoComplete="new-password" value={form.password} onChange={set('password')}
          errors={fieldErrors(m.error, 'password')} hint="At least 12 characters." />
        <ErrorDisplay error={m.error ?? needed.error} fields={[...FIELDS]} />
        <button type="submit" disabled={m.isPending}>Create organization</button>
      </>
    );
  }
  return (
    <main className="centered">
      <form className="card" onSubmit={submit} noValidate>
        <h1>Set up AlertFlow</h1>
        {body}
      </form>
    </main>
  );
}

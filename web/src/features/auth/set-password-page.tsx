import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, TextField } from '../../components/form';
import { setPassword } from './auth-api';
import { useReplaceSession } from './session';

/** The public page of a one-time link: set a password, and be signed in. */
export default function SetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const navigate = useNavigate();
  const replace = useReplaceSession();
  const [password, setValue] = useState('');
  const m = useMutation({
    mutationFn: () => setPassword({ token, password }),
    onSuccess: (s) => {
      replace(s);
      navigate('/incidents', { replace: true });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    m.mutate();
  };
  return (
    <main className="centered">
      <form className="card" onSubmit={submit} noValidate>
        <h1>Set your password</h1>
        {token ? (
          <>
            <p>Choose the password you will sign in with. This link works once.</p>
            <TextField label="New password" type="password" required autoComplete="new-password" value={password}
              onChange={(e) => setValue(e.target.value)} errors={fieldErrors(m.error, 'password')} hint="At least 12 characters." />
            <ErrorDisplay error={m.error} fields={['password']} />
            <button type="submit" disabled={m.isPending}>Set password and sign in</button>
          </>
        ) : <p>This page needs the link an admin gave you (it ends in <code>/set-password?token=…</code>).</p>}
        <p><Link to="/sign-in">Sign in</Link> instead</p>
      </form>
    </main>
  );
}

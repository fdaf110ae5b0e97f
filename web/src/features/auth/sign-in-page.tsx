import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import type { LoginBody, OrgChoice } from '../../api/types';
import { login, orgChoices } from './auth-api';
import { useReplaceSession, useSessionQuery } from './session';

/** Only a path of this site: `next` must never send the user elsewhere after sign-in. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/alerts';
}

export default function SignInPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const replace = useReplaceSession();
  const current = useSessionQuery();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [orgId, setOrgId] = useState('');
  const [orgs, setOrgs] = useState<OrgChoice[]>([]);
  const m = useMutation({
    mutationFn: (input: LoginBody) => login(input),
    onSuccess: (s) => {
      replace(s);
      navigate(next, { replace: true });
    },
    // The email is in several organizations: the answer lists them and the user picks one.
    onError: (err) => {
      if (err instanceof ApiError && err.status === 409) setOrgs(orgChoices(err));
    },
  });

  if (current.data) return <Navigate to={next} replace />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    m.mutate({ email, password, ...(orgId && { organizationId: orgId }) });
  };
  return (
    <main className="centered">
      <form className="card" onSubmit={submit} noValidate>
        <h1>Sign in to AlertFlow</h1>
        <TextField label="Email" type="email" autoComplete="username" required value={email}
          onChange={(e) => setEmail(e.target.value)} errors={fieldErrors(m.error, 'email')} />
        <TextField label="Password" type="password" autoComplete="current-password" required value={password}
          onChange={(e) => setPassword(e.target.value)} errors={fieldErrors(m.error, 'password')} />
        {orgs.length > 0 && (
          <SelectField label="Organization" hint="This email belongs to several organizations: choose one." value={orgId}
            onChange={(e) => setOrgId(e.target.value)} required>
            <option value="">Choose…</option>
            {orgs.map((o) => <option key={o.organizationId} value={o.organizationId}>{o.organizationName}</option>)}
          </SelectField>
        )}
        {m.error && !(m.error instanceof ApiError && m.error.status === 409) && (
          <ErrorDisplay error={m.error} fields={['email', 'password', 'organizationId']} />
        )}
        <button type="submit" disabled={m.isPending}>Sign in</button>
        <p className="hint">First time here? Open the setup link the server printed at its first start.</p>
      </form>
    </main>
  );
}

import { useState, type FormEvent } from 'react';
import type { NewApiKey, Scope } from '../../api/types';
import { CopyButton } from '../../components/copy-button';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, TextField } from '../../components/form';
import type { NewKeyInput } from './api-keys-api';
import { SCOPE_PRESETS, scopeGroups } from './scopes';

interface Props {
  onCreate: (input: NewKeyInput) => void;
  onDone: () => void;
  error: unknown;
  busy: boolean;
  created: NewApiKey | undefined;
}

/** The key, shown once: the API never returns it again. */
function CreatedKey({ created, onDone }: { created: NewApiKey; onDone: () => void }) {
  return (
    <section className="panel notice" aria-labelledby="key-created">
      <h2 id="key-created">API key “{created.name}” created</h2>
      <p role="alert"><strong>Copy this key now. It is shown only once and cannot be retrieved later.</strong></p>
      <div className="copy-row">
        <code className="break" data-testid="new-key">{created.key}</code>
        <CopyButton text={created.key} label="Copy key" />
      </div>
      <button type="button" onClick={onDone}>I have copied the key</button>
    </section>
  );
}

/** Name, scopes as checkboxes grouped by resource, optional expiry (a date: the key ends at its start, UTC). */
export function NewKeyForm({ onCreate, onDone, error, busy, created }: Props) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set());
  const [expires, setExpires] = useState('');
  if (created) return <CreatedKey created={created} onDone={onDone} />;

  const toggle = (s: Scope) => {
    const next = new Set(scopes);
    if (next.has(s)) next.delete(s);
    else next.add(s);
    setScopes(next);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onCreate({ name, scopes: [...scopes], ...(expires && { expiresAt: new Date(`${expires}T00:00:00Z`).toISOString() }) });
  };
  const scopeErrors = fieldErrors(error, 'scopes');
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="new-key">
      <h2 id="new-key">New API key</h2>
      <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} errors={fieldErrors(error, 'name')}
        hint="Say what uses it, e.g. “Terraform” or “status page”." />
      <fieldset className="scopes" aria-describedby={scopeErrors.length ? 'scope-errors' : undefined}>
        <legend>Scopes</legend>
        <div className="actions start">
          {SCOPE_PRESETS.map((p) => (
            <button key={p.label} type="button" className="secondary small" onClick={() => setScopes(new Set(p.scopes))}>{p.label}</button>
          ))}
          <button type="button" className="secondary small" onClick={() => setScopes(new Set())}>None</button>
        </div>
        {scopeGroups().map((g) => (
          <fieldset key={g.resource} className="scope-group">
            <legend>{g.name}</legend>
            {g.scopes.map((s) => (
              <label key={s} className="check">
                <input type="checkbox" checked={scopes.has(s)} onChange={() => toggle(s)} /> {s}
              </label>
            ))}
          </fieldset>
        ))}
        {scopeErrors.length > 0 && <ul id="scope-errors" className="field-errors" role="alert">{scopeErrors.map((m) => <li key={m}>Scopes {m}</li>)}</ul>}
      </fieldset>
      <TextField label="Expires on (optional)" type="date" value={expires} onChange={(e) => setExpires(e.target.value)}
        errors={fieldErrors(error, 'expiresAt')} hint="Leave empty for a key that does not expire." />
      <ErrorDisplay error={error} fields={['name', 'scopes', 'expiresAt']} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onDone}>Cancel</button>
        <button type="submit" disabled={busy}>Create API key</button>
      </div>
    </form>
  );
}

import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import type { ContactMethod, NotificationRule } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { move, rulesOf, type RuleRow } from './contacts-fns';
import type { useSaveRules } from './contacts-api';

/** The ordered rules "after N minutes → method": rows added, removed, moved, then saved as a whole. */
export function RulesEditor({ rules, methods, save }: { rules: NotificationRule[]; methods: ContactMethod[]; save: ReturnType<typeof useSaveRules> }) {
  const [rows, setRows] = useState<RuleRow[]>(rules.map((r) => ({ contactMethodId: r.contactMethodId, minutes: String(r.afterMinutes) })));
  // The editor starts over from the stored rules once saved (see the page), so "saved" outlives it in the mutation.
  const [dirty, setDirty] = useState(false);
  const change = (next: RuleRow[]) => {
    setRows(next);
    setDirty(true);
  };
  const set = (i: number, patch: Partial<RuleRow>) => change(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate(rulesOf(rows));
  };
  const first = methods[0];
  return (
    <form onSubmit={submit} noValidate aria-label="Notification rules">
      {rows.length === 0 && <p className="muted">No rules: every contact method pages you at once.</p>}
      <ol className="rule-rows">
        {rows.map((r, i) => (
          <li key={i} className="rule-row" data-testid="rule">
            <TextField label={`Rule ${i + 1}: after (minutes)`} type="number" inputMode="numeric" min={0} max={1440} value={r.minutes}
              errors={fieldErrors(save.error, `rules/${i}/afterMinutes`)} onChange={(e) => set(i, { minutes: e.target.value })} />
            <SelectField label={`Rule ${i + 1}: contact method`} value={r.contactMethodId}
              errors={[...fieldErrors(save.error, `rules/${i}/contactMethodId`), ...ownErrors(save.error, i)]}
              onChange={(e) => set(i, { contactMethodId: e.target.value })}>
              {!methods.some((m) => m.id === r.contactMethodId) && <option value={r.contactMethodId}>(deleted method)</option>}
              {methods.map((m) => <option key={m.id} value={m.id}>{m.label}</option>)}
            </SelectField>
            <div className="row-actions">
              <button type="button" className="secondary small" disabled={i === 0} onClick={() => change(move(rows, i, -1))} aria-label={`Move rule ${i + 1} up`}>Up</button>
              <button type="button" className="secondary small" disabled={i === rows.length - 1} onClick={() => change(move(rows, i, 1))} aria-label={`Move rule ${i + 1} down`}>Down</button>
              <button type="button" className="secondary small" onClick={() => change(rows.filter((_, j) => j !== i))} aria-label={`Remove rule ${i + 1}`}>Remove</button>
            </div>
          </li>
        ))}
      </ol>
      <ErrorDisplay error={save.error} fields={rows.map((_, i) => `rules/${i}`)} />
      {save.isSuccess && !dirty && <p role="status">Rules saved.</p>}
      <div className="actions start">
        {first && rows.length < 20 && (
          <button type="button" className="secondary" onClick={() => change([...rows, { contactMethodId: first.id, minutes: rows.length === 0 ? '0' : '5' }])}>Add rule</button>
        )}
        <button type="submit" disabled={save.isPending}>Save rules</button>
      </div>
    </form>
  );
}

/** A problem with a rule as a whole (listed twice) shows beside it, like its fields' problems. */
const ownErrors = (error: unknown, i: number): string[] =>
  error instanceof ApiError ? error.details.filter((d) => d.path === `/rules/${i}`).map((d) => d.message) : [];

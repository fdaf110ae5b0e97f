import { useState, type FormEvent } from 'react';
import { channelsFor, useChannels } from '../../api/channels';
import type { CreateWorkflowBody, DryRun, SampleAlert, Workflow } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextAreaField, TextField } from '../../components/form';
import { useCan } from '../auth/session';
import { ActionList, SEVERITY_CHOICES } from './action-list';
import { ConditionsEditor } from './condition-editor';
import { TestPanel } from './test-panel';
import { bodyOf, draftOf, fieldSuggestions, parseDraft, TRIGGERS, type Draft } from './workflow-fns';
import { useActionChoices, useDryRun, useRecentAlerts } from './workflows-api';

interface Props {
  initial: Workflow | null;
  onSave: (body: CreateWorkflowBody) => void;
  saving: boolean;
  saveError: unknown;
  saved: boolean;
}

/** The fields the form shows: the API's details naming them show beside them, the rest above the save button. */
const FORM_FIELDS = ['name', 'description', 'trigger', 'enabled', 'conditions', 'actions'];

/** A workflow's definition as a form (or JSON), tried on an alert before it is saved. */
export function WorkflowEditor({ initial, onSave, saving, saveError, saved }: Props) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(initial));
  const [view, setView] = useState<'form' | 'json'>('form');
  const [jsonText, setJsonText] = useState('');
  const [jsonError, setJsonError] = useState<string | null>(null);
  // Problems show beside the fields from whichever of save and test ran last.
  const [lastRun, setLastRun] = useState<'save' | 'test'>('save');
  const recent = useRecentAlerts();
  const { schedules, users, policies } = useActionChoices();
  const catalogue = useChannels();
  const dryRun = useDryRun();
  const canWrite = useCan('workflows:write');
  const error = lastRun === 'save' ? saveError : dryRun.error;
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  // A saved workflow is switched on and off by its page's button: saving the form leaves that as it is.
  const { enabled, ...rest } = bodyOf(draft);
  const body: CreateWorkflowBody = initial ? rest : { ...rest, enabled };

  const showJson = () => {
    setJsonText(JSON.stringify(body, null, 2));
    setJsonError(null);
    setView('json');
  };
  const applyJson = (text: string) => {
    setJsonText(text);
    const r = parseDraft(text, draft);
    if (r.ok) {
      setDraft(r.draft);
      setJsonError(null);
    } else setJsonError(r.error);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setLastRun('save');
    onSave(body);
  };
  const test = (alert: SampleAlert, done: (r: DryRun) => void) => {
    setLastRun('test');
    dryRun.mutate({ ...(body.conditions !== undefined && { conditions: body.conditions }), actions: body.actions, alert }, { onSuccess: (r) => done(r.data) });
  };

  return (
    <div className="workflow-editor">
      <form className="panel" onSubmit={submit} noValidate aria-labelledby="definition-title">
        <div className="page-head">
          <h2 id="definition-title">Definition</h2>
          <div className="tabs" role="group" aria-label="Definition view">
            <button type="button" className={view === 'form' ? undefined : 'secondary'} aria-pressed={view === 'form'} onClick={() => setView('form')}>Form</button>
            <button type="button" className={view === 'json' ? undefined : 'secondary'} aria-pressed={view === 'json'} onClick={showJson}>JSON</button>
          </div>
        </div>
        {view === 'form' ? (
          <>
            <TextField label="Name" required value={draft.name} onChange={(e) => set({ name: e.target.value })} errors={fieldErrors(error, 'name')} />
            <TextAreaField label="Description" rows={2} value={draft.description} onChange={(e) => set({ description: e.target.value })} errors={fieldErrors(error, 'description')} />
            <SelectField label="Runs when" value={draft.trigger} onChange={(e) => set({ trigger: e.target.value as Draft['trigger'] })} errors={fieldErrors(error, 'trigger')}>
              {TRIGGERS.map((t) => <option key={t.value} value={t.value}>{t.label}</option>)}
              {!TRIGGERS.some((t) => t.value === draft.trigger) && <option value={draft.trigger}>{draft.trigger}</option>}
            </SelectField>
            {!initial && (
              <label className="check">
                <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} /> Enabled (runs on its trigger)
              </label>
            )}
            <fieldset>
              <legend>Conditions</legend>
              <ConditionsEditor value={draft.conditions} onChange={(conditions) => set({ conditions })} error={error} fields={fieldSuggestions(recent.data?.data ?? [])} />
            </fieldset>
            <fieldset>
              <legend>Actions, in order</legend>
              <ActionList actions={draft.actions} onChange={(actions) => set({ actions })} error={error} choices={{ schedules, users, policies, severities: SEVERITY_CHOICES }} channels={channelsFor(catalogue.data, 'workflow')} />
            </fieldset>
          </>
        ) : (
          <TextAreaField label="Workflow as JSON" className="code" rows={20} value={jsonText} onChange={(e) => applyJson(e.target.value)}
            errors={jsonError ? [jsonError] : []} hint="The body the API receives; changes here apply to the form." />
        )}
        <ErrorDisplay error={lastRun === 'save' ? saveError : null} fields={view === 'form' ? FORM_FIELDS : []} />
        <div className="actions">
          {saved && <span role="status">Workflow saved.</span>}
          {canWrite && <button type="submit" disabled={saving || jsonError !== null}>Save workflow</button>}
        </div>
      </form>
      <TestPanel alerts={recent.data?.data ?? []} onTest={test} testing={dryRun.isPending} error={dryRun.error} formFields={view === 'form' ? FORM_FIELDS : []} />
    </div>
  );
}

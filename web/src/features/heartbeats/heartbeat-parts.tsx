import { useState, type FormEvent } from 'react';
import type { Heartbeat, Severity } from '../../api/types';
import { CodeBlock } from '../../components/code-block';
import { CopyButton } from '../../components/copy-button';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextAreaField, TextField } from '../../components/form';
import { labelsText, parseLabels } from './heartbeats-fns';

const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

/** The state as a word with a colour cue (the word carries the meaning). */
export function HeartbeatState({ value }: { value: Heartbeat['state'] }) {
  return <span className={`badge hb-${value}`}>{value}</span>;
}

export const cronExample = (url: string): string =>
  `# after the job, only when it succeeded:\n30 2 * * *  /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 3 -o /dev/null '${url}'`;

/** The ping URL, shown once (after create or rotate): only a hash of its token is kept. */
export function PingUrl({ url, onDone }: { url: string; onDone: () => void }) {
  return (
    <section className="panel" aria-labelledby="ping-url">
      <h2 id="ping-url">Ping URL</h2>
      <p><strong>Copy it now: it is shown only this once.</strong> Your job calls it (GET or POST) after each successful run; it is the credential, keep it secret.</p>
      <div className="copy-row">
        <code className="break" data-testid="ping-url">{url}</code>
        <CopyButton text={url} label="Copy URL" />
      </div>
      <h3>In a crontab</h3>
      <CodeBlock label="cron example" text={cronExample(url)} />
      <div className="actions">
        <CopyButton text={cronExample(url)} label="Copy cron example" />
        <button type="button" className="secondary" onClick={onDone}>Done</button>
      </div>
    </section>
  );
}

export interface HeartbeatFields {
  name: string;
  intervalSeconds: number;
  graceSeconds: number;
  severity: Severity;
  clientId: string | null;
  labels: Record<string, string>;
}

const numberOr = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));

/** The create and edit form: the same fields, the API's messages next to each. */
export function HeartbeatForm(props: {
  heading: string;
  initial: HeartbeatFields;
  clients: Array<{ id: string; name: string }>;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit: (fields: HeartbeatFields) => void;
  onCancel: () => void;
}) {
  const { initial, error } = props;
  const [name, setName] = useState(initial.name);
  const [interval, setIntervalText] = useState(String(initial.intervalSeconds));
  const [grace, setGrace] = useState(String(initial.graceSeconds));
  const [severity, setSeverity] = useState<Severity>(initial.severity);
  const [clientId, setClientId] = useState(initial.clientId ?? '');
  const [labels, setLabels] = useState(labelsText(initial.labels));
  const [labelsError, setLabelsError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseLabels(labels);
    setLabelsError(parsed.ok ? null : parsed.error);
    if (!parsed.ok) return;
    props.onSubmit({ name, intervalSeconds: numberOr(interval), graceSeconds: numberOr(grace), severity, clientId: clientId || null, labels: parsed.labels });
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-label={props.heading}>
      <h2>{props.heading}</h2>
      <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} errors={fieldErrors(error, 'name')}
        hint="The job it watches, e.g. “nightly-backup”. Alerts carry it as the label heartbeat." />
      <TextField label="Expected every (seconds)" type="number" inputMode="numeric" min={1} required value={interval}
        onChange={(e) => setIntervalText(e.target.value)} errors={fieldErrors(error, 'intervalSeconds')} hint="3600 = hourly, 86400 = daily." />
      <TextField label="Grace (seconds)" type="number" inputMode="numeric" min={0} value={grace}
        onChange={(e) => setGrace(e.target.value)} errors={fieldErrors(error, 'graceSeconds')} hint="How late a ping may be before an alert opens." />
      <SelectField label="Alert severity" value={severity} onChange={(e) => setSeverity(e.target.value as Severity)} errors={fieldErrors(error, 'severity')}>
        {SEVERITIES.map((s) => <option key={s} value={s}>{s}</option>)}
      </SelectField>
      <SelectField label="Client" value={clientId} onChange={(e) => setClientId(e.target.value)} errors={fieldErrors(error, 'clientId')}>
        <option value="">No client</option>
        {props.clients.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
      </SelectField>
      <TextAreaField label="Labels" rows={3} value={labels} onChange={(e) => setLabels(e.target.value)}
        errors={labelsError ? [labelsError] : fieldErrors(error, 'labels')} hint="One key=value a line, e.g. team=dba; the alert also gets heartbeat=<name>." />
      <ErrorDisplay error={error} fields={['name', 'intervalSeconds', 'graceSeconds', 'severity', 'clientId', 'labels']} />
      <div className="actions">
        <button type="button" className="secondary" onClick={props.onCancel}>Cancel</button>
        <button type="submit" disabled={props.busy}>{props.submitLabel}</button>
      </div>
    </form>
  );
}

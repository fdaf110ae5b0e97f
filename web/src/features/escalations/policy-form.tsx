import { useState, type FormEvent } from 'react';
import { blankTarget as blankChannelTarget, channelNamed, channelsFor, useChannels } from '../../api/channels';
import type { ChannelInfo, CreateEscalationPolicyBody, EscalationStep, EscalationTarget } from '../../api/types';
import { ChannelFields } from '../../components/channel-fields';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { blankStep, blankTarget, cleanTargets, fieldsOf, retarget, withFields } from './escalations-fns';

type Names = { users: Map<string, string>; schedules: Map<string, string>; channels?: ChannelInfo[] | undefined };

const KINDS = [
  { value: 'user', label: 'A member' },
  { value: 'schedule', label: 'A schedule\'s on-call' },
  { value: 'channel', label: 'A channel' },
];

function TargetFields({ target, path, error, names, channels, onChange }: {
  target: EscalationTarget; path: string; error: unknown; names: Names; channels: ChannelInfo[]; onChange: (t: EscalationTarget) => void;
}) {
  if (target.type === 'channel') {
    const info = channelNamed(channels, target.channel);
    return (
      <>
        <SelectField label="Channel" value={target.channel} errors={fieldErrors(error, `${path}/channel`)} {...(info && { hint: info.about })}
          onChange={(e) => onChange(withFields({ type: 'channel', channel: e.target.value as typeof target.channel, target: target.target }, blankChannelTarget(channelNamed(channels, e.target.value))))}>
          {channels.map((c) => <option key={c.type} value={c.type}>{c.available ? c.label : `${c.label} (off)`}</option>)}
        </SelectField>
        {info && !info.available && <p className="hint" role="note">{info.label} is off: {info.unavailable}</p>}
        {info && <ChannelFields info={info} target={fieldsOf(target)} path={`${path}/target`} error={error} onChange={(fields) => onChange(withFields(target, fields))} />}
      </>
    );
  }
  const options = target.type === 'user' ? names.users : names.schedules;
  return (
    <SelectField label={target.type === 'user' ? 'Member' : 'Schedule'} value={target.id} errors={fieldErrors(error, `${path}/id`)}
      onChange={(e) => onChange({ ...target, id: e.target.value })}>
      <option value="">Choose…</option>
      {[...options].map(([id, name]) => <option key={id} value={id}>{name}</option>)}
    </SelectField>
  );
}

/** The create and edit form: steps in order, each with its targets and the wait before the next; the API's messages next to each field. */
export function PolicyForm(props: {
  heading: string;
  initial: CreateEscalationPolicyBody;
  names: Names;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit: (body: CreateEscalationPolicyBody) => void;
  onCancel: () => void;
}) {
  const { error, names } = props;
  const catalogue = useChannels();
  const channels = channelsFor(catalogue.data, 'escalation');
  const [name, setName] = useState(props.initial.name);
  const [repeat, setRepeat] = useState(String(props.initial.repeat ?? 0));
  const [steps, setSteps] = useState<EscalationStep[]>(props.initial.steps);
  const repeats = Number(repeat) > 0;
  const setStep = (i: number, s: EscalationStep) => setSteps(steps.map((x, j) => (j === i ? s : x)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    props.onSubmit({ name, repeat: repeat.trim() === '' ? Number.NaN : Number(repeat), steps: cleanTargets(steps, catalogue.data) });
  };
  return (
    <form className="panel" onSubmit={submit} noValidate aria-label={props.heading}>
      <h2>{props.heading}</h2>
      <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} errors={fieldErrors(error, 'name')} />
      {steps.map((s, i) => (
        <fieldset key={i}>
          <legend>Step {i + 1}</legend>
          {s.targets.map((t, k) => {
            const path = `steps/${i}/targets/${k}`;
            return (
              <div key={k} className="panel">
                <SelectField label={`Target ${k + 1}: page`} value={t.type} onChange={(e) => setStep(i, { ...s, targets: s.targets.map((x, m) => (m === k ? retarget(e.target.value, channels) : x)) })}>
                  {KINDS.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
                </SelectField>
                <TargetFields target={t} path={path} error={error} names={names} channels={channels} onChange={(nt) => setStep(i, { ...s, targets: s.targets.map((x, m) => (m === k ? nt : x)) })} />
                {s.targets.length > 1 && (
                  <button type="button" className="secondary" onClick={() => setStep(i, { ...s, targets: s.targets.filter((_, m) => m !== k) })}>Remove target {k + 1}</button>
                )}
              </div>
            );
          })}
          {/* The last step's wait only matters when the policy starts again: without repeats it is not asked. */}
          {(i < steps.length - 1 || repeats) && (
            <TextField label={i === steps.length - 1 ? 'Then wait, before repeating (minutes)' : `Then wait, before step ${i + 2} (minutes)`} type="number" inputMode="numeric" min={0} max={1440}
              value={String(s.delayMinutes)} errors={fieldErrors(error, `steps/${i}/delayMinutes`)}
              onChange={(e) => setStep(i, { ...s, delayMinutes: e.target.value.trim() === '' ? Number.NaN : Number(e.target.value) })} />
          )}
          <div className="actions">
            <button type="button" className="secondary" disabled={s.targets.length >= 10} onClick={() => setStep(i, { ...s, targets: [...s.targets, blankTarget()] })}>Add target</button>
            {steps.length > 1 && <button type="button" className="secondary" onClick={() => setSteps(steps.filter((_, j) => j !== i))}>Remove step {i + 1}</button>}
          </div>
        </fieldset>
      ))}
      <div className="actions">
        <button type="button" className="secondary" disabled={steps.length >= 10} onClick={() => setSteps([...steps, blankStep()])}>Add step</button>
      </div>
      <TextField label="Repeat the whole policy (times)" type="number" inputMode="numeric" min={0} max={5} value={repeat}
        onChange={(e) => setRepeat(e.target.value)} errors={fieldErrors(error, 'repeat')} hint="0–5 more rounds while nobody acknowledges." />
      <ErrorDisplay error={error} fields={['name', 'repeat', 'steps']} />
      <div className="actions">
        <button type="button" className="secondary" onClick={props.onCancel}>Cancel</button>
        <button type="submit" disabled={props.busy}>{props.submitLabel}</button>
      </div>
    </form>
  );
}

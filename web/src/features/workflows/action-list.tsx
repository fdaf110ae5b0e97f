import { useState } from 'react';
import { blankTarget, channelNamed } from '../../api/channels';
import { ApiError } from '../../api/client';
import type { ChannelInfo } from '../../api/types';
import { ChannelFields } from '../../components/channel-fields';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { ACTION_TYPES, actionLabel, type ActionField, type ChoiceSource } from './action-types';
import { labelsText, listText, ParsedInput } from './parsed-input';
import type { ActionDraft } from './workflow-fns';

export type Choices = Record<ChoiceSource, { value: string; label: string }[]>;

export const SEVERITY_CHOICES = ['critical', 'high', 'medium', 'low', 'info'].map((s) => ({ value: s, label: s }));

function FieldControl({ field, action, onChange, error, path, choices, channels }: {
  field: ActionField; action: ActionDraft; onChange: (a: ActionDraft) => void; error: unknown; path: string; choices: Choices; channels: ChannelInfo[];
}) {
  const v = action[field.name];
  const set = (x: unknown) => onChange({ ...action, [field.name]: x });
  const common = { label: field.label, errors: fieldErrors(error, `${path}/${field.name}`), ...(field.hint && { hint: field.hint }) };
  switch (field.kind) {
    case 'channel': {
      const current = typeof v === 'string' ? v : '';
      return (
        <SelectField {...common} value={current} onChange={(e) => onChange({ ...action, [field.name]: e.target.value, target: blankTarget(channelNamed(channels, e.target.value)) })}>
          <option value="">Choose…</option>
          {channels.map((c) => <option key={c.type} value={c.type}>{c.available ? c.label : `${c.label} (off)`}</option>)}
        </SelectField>
      );
    }
    case 'target': {
      const info = channelNamed(channels, typeof action.channel === 'string' ? action.channel : '');
      if (!info) return null;
      return <ChannelFields info={info} target={(typeof v === 'object' && v !== null ? v : {}) as Record<string, string>} path={`${path}/${field.name}`} error={error} onChange={set} />;
    }
    case 'text':
    case 'secret':
      return <TextField {...common} type={field.kind === 'secret' ? 'password' : 'text'} autoComplete="off" value={typeof v === 'string' ? v : ''} onChange={(e) => set(e.target.value)} />;
    case 'seconds':
      return <TextField {...common} type="number" min={0} inputMode="numeric" value={typeof v === 'number' ? String(v) : ''}
        onChange={(e) => set(e.target.value === '' ? 0 : Number(e.target.value))} />;
    case 'list':
      return <ParsedInput {...common} value={Array.isArray(v) ? (v as string[]) : []} {...listText} onChange={set} />;
    case 'labels':
      return <ParsedInput {...common} multiline value={typeof v === 'object' && v !== null ? (v as Record<string, string>) : {}} {...labelsText} onChange={set} />;
    case 'choice': {
      const options = choices[field.choices ?? 'severities'];
      const current = typeof v === 'string' ? v : '';
      // A saved id not among the options (not loaded, or beyond the first 100) still shows, as itself.
      const known = current === '' || options.some((o) => o.value === current);
      return (
        <SelectField {...common} value={current} onChange={(e) => set(e.target.value === '' ? null : e.target.value)}>
          {field.choices !== 'severities' && <option value="">None</option>}
          {!known && <option value={current}>{current}</option>}
          {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
        </SelectField>
      );
    }
  }
}

interface Props {
  actions: ActionDraft[];
  onChange: (actions: ActionDraft[]) => void;
  error: unknown;
  choices: Choices;
  /** The channels a `notify` action may post to (the catalogue's `workflow` ones). */
  channels: ChannelInfo[];
}

/** The ordered actions: each with its own form (from ACTION_TYPES), moved up or down, removed; new ones added at the end. */
export function ActionList({ actions, onChange, error, choices, channels }: Props) {
  const [adding, setAdding] = useState(Object.keys(ACTION_TYPES)[0] as string);
  const move = (i: number, by: number) => {
    const next = [...actions];
    const [a] = next.splice(i, 1);
    next.splice(i + by, 0, a as ActionDraft);
    onChange(next);
  };
  return (
    <div className="action-list">
      {actions.length === 0 && <p className="muted">No actions yet: a workflow needs at least one.</p>}
      <ol>
        {actions.map((a, i) => {
          const type = ACTION_TYPES[a.type];
          const own = error instanceof ApiError ? error.details.filter((d) => d.path === `/actions/${i}`).map((d) => d.message) : [];
          return (
            <li key={i} className="action-item" data-testid="action">
              <fieldset>
                <legend>{i + 1}. {actionLabel(a.type)}</legend>
                <div className="actions start">
                  <button type="button" className="secondary small" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move action ${i + 1} up`}>Up</button>
                  <button type="button" className="secondary small" disabled={i === actions.length - 1} onClick={() => move(i, 1)} aria-label={`Move action ${i + 1} down`}>Down</button>
                  <button type="button" className="secondary small" onClick={() => onChange(actions.filter((_, j) => j !== i))} aria-label={`Remove action ${i + 1}`}>Remove</button>
                </div>
                {type ? (
                  <>
                    <p className="hint">{type.about}</p>
                    {type.fields.map((f) => (
                      <FieldControl key={f.name} field={f} action={a} choices={choices} channels={channels} error={error} path={`actions/${i}`}
                        onChange={(next) => onChange(actions.map((x, j) => (j === i ? next : x)))} />
                    ))}
                  </>
                ) : <p className="hint">This page does not know this action type; edit it in the JSON view.</p>}
                {own.map((m) => <p key={m} className="field-errors" role="alert">{m}</p>)}
              </fieldset>
            </li>
          );
        })}
      </ol>
      <div className="add-action">
        <SelectField label="New action" value={adding} onChange={(e) => setAdding(e.target.value)}>
          {Object.entries(ACTION_TYPES).map(([t, d]) => <option key={t} value={t}>{d.label}</option>)}
        </SelectField>
        <button type="button" className="secondary" onClick={() => onChange([...actions, (ACTION_TYPES[adding] as (typeof ACTION_TYPES)[string]).blank()])}>Add action</button>
      </div>
    </div>
  );
}

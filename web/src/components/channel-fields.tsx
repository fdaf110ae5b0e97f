import type { ChannelInfo } from '../api/types';
import { cleanTarget } from '../api/channels';
import { fieldErrors, TextField } from './form';

/**
 * The fields of one channel's target, as the channel catalogue declares them: secrets as password inputs
 * (a saved one shows the mask; left as it is, it is kept), URLs and addresses with their input types. Every
 * change hands back the target without the optional fields left empty (`cleanTarget`, trimmed when sent).
 */
export function ChannelFields({ info, target, path, error, onChange }: {
  /** A channel of the catalogue, or an organization's set-up of one (its settings' fields). */
  info: Pick<ChannelInfo, 'type' | 'fields'>;
  target: Record<string, string>;
  /** Where the API reports this target's problems: `target`, `steps/0/targets/1/target`. */
  path: string;
  error: unknown;
  onChange: (target: Record<string, string>) => void;
}) {
  return (
    <>
      {info.fields.map((f) => (
        <TextField key={`${info.type}-${f.name}`} label={f.required ? f.label : `${f.label} (optional)`} hint={f.hint} required={f.required}
          type={f.secret ? 'password' : f.url ? 'url' : f.format === 'email' ? 'email' : 'text'} autoComplete="off" spellCheck={false}
          {...(f.maxLength !== null && { maxLength: f.maxLength })}
          value={target[f.name] ?? ''} errors={fieldErrors(error, `${path}/${f.name}`)}
          onChange={(e) => onChange(cleanTarget(info, { ...target, [f.name]: e.target.value }, false))} />
      ))}
    </>
  );
}

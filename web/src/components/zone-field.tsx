import { useId, useMemo } from 'react';
import { TextField } from './form';
import { zoneNames } from './zone';

/** An IANA time zone, typed with the browser's list of zones as suggestions (the server has the last word). */
export function ZoneField({ value, onChange, errors, hint }: { value: string; onChange: (zone: string) => void; errors: string[]; hint: string }) {
  const zones = useMemo(zoneNames, []);
  const listId = useId();
  return (
    <>
      <TextField label="Time zone" list={listId} value={value} onChange={(e) => onChange(e.target.value)} errors={errors} hint={hint} />
      <datalist id={listId}>{zones.map((z) => <option key={z} value={z} />)}</datalist>
    </>
  );
}

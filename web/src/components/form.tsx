import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { ApiError } from '../api/client';

/** The messages the API's `details` give for `name`, so each shows next to its own field. */
export function fieldErrors(error: unknown, name: string): string[] {
  return error instanceof ApiError ? error.forField(name) : [];
}

interface FieldProps {
  label: string;
  hint?: string;
  errors?: string[];
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => ReactNode;
}

/** A label, the control, a hint and the field's errors in words, wired by id for screen readers. */
export function Field({ label, hint, errors = [], children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errId = errors.length ? `${id}-err` : undefined;
  const describedBy = [hintId, errId].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, describedBy, invalid: errors.length > 0 })}
      {hint && <small id={hintId} className="hint">{hint}</small>}
      {errId && (
        // The live region wraps the list: role="alert" on the <ul> itself would take away its list semantics.
        <div id={errId} role="alert">
          <ul className="field-errors">
            {errors.map((e) => <li key={e}>{label} {e}</li>)}
          </ul>
        </div>
      )}
    </div>
  );
}

type Base = { label: string; hint?: string; errors?: string[] };

export function TextField({ label, hint, errors, ...rest }: Base & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field label={label} {...(hint && { hint })} {...(errors && { errors })}>
      {({ id, describedBy, invalid }) => <input id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...rest} />}
    </Field>
  );
}

export function SelectField({ label, hint, errors, children, ...rest }: Base & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Field label={label} {...(hint && { hint })} {...(errors && { errors })}>
      {({ id, describedBy, invalid }) => (
        <select id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...rest}>{children}</select>
      )}
    </Field>
  );
}

export function TextAreaField({ label, hint, errors, ...rest }: Base & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Field label={label} {...(hint && { hint })} {...(errors && { errors })}>
      {({ id, describedBy, invalid }) => <textarea id={id} aria-describedby={describedBy} aria-invalid={invalid || undefined} {...rest} />}
    </Field>
  );
}

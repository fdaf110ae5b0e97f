import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { ErrorDisplay } from './error-display';

afterEach(cleanup);

const refusal = (details: Array<{ path: string; message: string }>) =>
  new ApiError(400, { error: 'Escalation policy is invalid', code: 'VALIDATION_ERROR', details });

describe('ErrorDisplay', () => {
  it('does not repeat the envelope\'s generic words when every reason shows beside its field', () => {
    render(<ErrorDisplay error={refusal([{ path: '/name', message: 'is required' }, { path: '/steps/0/delayMinutes', message: 'must be at most 1440' }])} fields={['name', 'steps']} />);
    expect(screen.getByRole('alert').textContent).toBe('2 fields need a change: see the messages beside them.');
  });

  it('keeps the message and lists the reasons no field shows', () => {
    render(<ErrorDisplay error={refusal([{ path: '/name', message: 'is required' }, { path: '', message: 'body too large' }])} fields={['name']} />);
    const box = screen.getByRole('alert').textContent ?? '';
    expect(box).toContain('Escalation policy is invalid');
    expect(box).toContain('body too large');
    expect(box).not.toContain('is required');
  });

  it('says the message of an error without details', () => {
    render(<ErrorDisplay error={new ApiError(409, { error: 'Name taken', code: 'CONFLICT', details: [] })} fields={['name']} />);
    expect(screen.getByRole('alert').textContent).toBe('Name taken');
  });
});

import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { PreviewFrame } from './preview-frame';

afterEach(cleanup);

describe('PreviewFrame', () => {
  const refusal = new ApiError(400, { error: 'Schedule is invalid', code: 'VALIDATION_ERROR', details: [{ path: '/layers', message: 'must have at least one layer' }] });
  const query = { data: undefined, error: refusal, isFetching: false };

  it('tells a form nobody has changed what the preview will show, not what is wrong with it', () => {
    render(<PreviewFrame query={query} testId="p" untouched>{() => null}</PreviewFrame>);
    expect(screen.getByTestId('p').textContent).toBe('The preview appears here once the form is filled in.');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('once changed, says why there is nothing to preview', () => {
    render(<PreviewFrame query={query} testId="p">{() => null}</PreviewFrame>);
    expect(screen.getByRole('alert').textContent).toContain('must have at least one layer');
  });
});

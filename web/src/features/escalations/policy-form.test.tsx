import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CATALOGUE } from '../../api/channels-fixture';
import { PolicyForm } from './policy-form';

afterEach(cleanup);

function setup(repeat: number) {
  const client = new QueryClient();
  client.setQueryData(['channels'], { data: CATALOGUE });
  const onSubmit = vi.fn();
  const steps = [1, 2].map((n) => ({ delayMinutes: 5 * n, targets: [{ type: 'user' as const, id: 'usr_1' }] }));
  render(
    <QueryClientProvider client={client}>
      <PolicyForm heading="Edit" initial={{ name: 'Ops', repeat, steps }} names={{ users: new Map([['usr_1', 'Ada']]), schedules: new Map() }}
        submitLabel="Save" busy={false} error={null} onSubmit={onSubmit} onCancel={() => undefined} />
    </QueryClientProvider>,
  );
  return { onSubmit };
}

describe('PolicyForm', () => {
  it('asks for the wait before repeating only while the policy repeats', () => {
    setup(0);
    expect(screen.getByLabelText('Then wait, before step 2 (minutes)')).toBeTruthy();
    expect(screen.queryByLabelText('Then wait, before repeating (minutes)')).toBeNull();
    fireEvent.change(screen.getByLabelText('Repeat the whole policy (times)'), { target: { value: '2' } });
    expect((screen.getByLabelText('Then wait, before repeating (minutes)') as HTMLInputElement).value).toBe('10');
  });

  it('keeps the hidden wait as it was when saving', () => {
    const { onSubmit } = setup(0);
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSubmit.mock.calls[0]?.[0].steps.map((s: { delayMinutes: number }) => s.delayMinutes)).toEqual([5, 10]);
  });
});

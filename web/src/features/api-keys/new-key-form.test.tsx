import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api/client';
import type { NewApiKey } from '../../api/types';
import { NewKeyForm } from './new-key-form';

afterEach(cleanup);

function setup(extra: Partial<Parameters<typeof NewKeyForm>[0]> = {}) {
  const onCreate = vi.fn();
  const onDone = vi.fn();
  render(<NewKeyForm onCreate={onCreate} onDone={onDone} error={null} busy={false} created={undefined} {...extra} />);
  return { onCreate, onDone };
}

describe('NewKeyForm', () => {
  it('groups the scopes by resource, one fieldset each', () => {
    setup();
    const alerts = screen.getByRole('group', { name: 'Alerts' });
    expect(within(alerts).getAllByRole('checkbox').map((c) => c.parentElement?.textContent?.trim())).toEqual(['alerts:read', 'alerts:write']);
    expect(screen.getByRole('group', { name: 'API keys' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Audit log' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Escalation policies' })).toBeTruthy();
  });

  it('offers presets: read only checks every :read scope, everything checks all, none clears', () => {
    const { onCreate } = setup();
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'dashboards' } });
    fireEvent.click(screen.getByRole('button', { name: 'Read only' }));
    fireEvent.click(screen.getByRole('button', { name: 'Create API key' }));
    const readOnly = onCreate.mock.calls[0]?.[0].scopes as string[];
    expect(readOnly).toContain('alerts:read');
    expect(readOnly).toContain('audit:read');
    expect(readOnly.every((s) => s.endsWith(':read'))).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Everything' }));
    expect((screen.getByLabelText('alerts:write') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('users:write') as HTMLInputElement).checked).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'None' }));
    expect((screen.getByLabelText('alerts:read') as HTMLInputElement).checked).toBe(false);
  });

  it('sends the name, the checked scopes and the expiry as an instant', () => {
    const { onCreate } = setup();
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Terraform' } });
    fireEvent.click(screen.getByLabelText('alerts:read'));
    fireEvent.click(screen.getByLabelText('integrations:write'));
    fireEvent.click(screen.getByLabelText('alerts:read'));
    fireEvent.click(screen.getByLabelText('audit:read'));
    fireEvent.change(screen.getByLabelText('Expires on (optional)'), { target: { value: '2027-01-31' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create API key' }));
    expect(onCreate).toHaveBeenCalledWith({ name: 'Terraform', scopes: ['integrations:write', 'audit:read'], expiresAt: '2027-01-31T00:00:00.000Z' });
  });

  it('leaves the expiry out when none is chosen', () => {
    const { onCreate } = setup();
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'ci' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create API key' }));
    expect(onCreate).toHaveBeenCalledWith({ name: 'ci', scopes: [] });
  });

  it('shows the API errors in words next to the fields they name', () => {
    const error = new ApiError(400, {
      error: 'Request body is invalid', code: 'VALIDATION_ERROR',
      details: [{ path: '/name', message: 'must NOT have fewer than 1 characters' }, { path: '/scopes', message: 'must NOT have fewer than 1 items' }],
    });
    setup({ error });
    const name = screen.getByLabelText('Name');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('Name must NOT have fewer than 1 characters')).toBeTruthy();
    expect(screen.getByText('Scopes must NOT have fewer than 1 items')).toBeTruthy();
  });

  it('shows the created key once, with a warning and a copy button', () => {
    const created: NewApiKey = {
      id: 'key_1', name: 'Terraform', scopes: ['alerts:read'], expiresAt: null, prefix: 'af_live_ab', createdAt: '2026-11-23T10:00:00Z',
      lastUsedAt: null, key: 'af_live_secret',
    };
    const { onDone } = setup({ created });
    expect(screen.getByTestId('new-key').textContent).toBe('af_live_secret');
    expect(screen.getByRole('alert').textContent).toMatch(/shown only once/);
    expect(screen.getByRole('button', { name: 'Copy key' })).toBeTruthy();
    expect(screen.queryByLabelText('Name')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'I have copied the key' }));
    expect(onDone).toHaveBeenCalled();
  });
});

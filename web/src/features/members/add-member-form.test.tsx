import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api/client';
import type { CreatedUser } from '../../api/types';
import { AddMemberForm, LinkNotice } from './add-member-form';

afterEach(cleanup);

describe('AddMemberForm', () => {
  it('offers only the roles given (an admin cannot add an owner) and sends email, name and role', () => {
    const onAdd = vi.fn();
    render(<AddMemberForm roles={['member', 'admin']} onAdd={onAdd} onCancel={vi.fn()} error={null} busy={false} />);
    const role = screen.getByLabelText('Role') as HTMLSelectElement;
    expect([...role.options].map((o) => o.value)).toEqual(['member', 'admin']);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'nora@example.test' } });
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'Nora' } });
    fireEvent.change(role, { target: { value: 'admin' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add member' }));
    expect(onAdd).toHaveBeenCalledWith({ email: 'nora@example.test', name: 'Nora', role: 'admin' });
  });

  it('shows a taken email in words', () => {
    const error = new ApiError(409, { error: 'A user with email nora@example.test already exists', code: 'CONFLICT', details: null });
    render(<AddMemberForm roles={['member']} onAdd={vi.fn()} onCancel={vi.fn()} error={error} busy={false} />);
    expect(screen.getByRole('alert').textContent).toContain('already exists');
  });
});

describe('LinkNotice', () => {
  const created: CreatedUser = {
    id: 'usr_1', email: 'nora@example.test', name: 'Nora', role: 'member', timezone: null, createdAt: '2026-11-23T10:00:00.000Z', updatedAt: '2026-11-23T10:00:00.000Z',
    setPasswordLink: { url: 'https://alertflow.example/set-password?token=abc', expiresAt: '2026-11-26T10:00:00.000Z', emailed: false },
  };

  it('shows the link to hand over, and says it was not emailed', () => {
    render(<LinkNotice created={created} onDone={vi.fn()} />);
    expect(screen.getByTestId('set-password-link').textContent).toBe(created.setPasswordLink.url);
    expect(screen.getByRole('alert').textContent).toMatch(/not emailed/);
    expect(screen.getByRole('button', { name: 'Copy link' })).toBeTruthy();
  });

  it('says so when it was emailed too', () => {
    render(<LinkNotice created={{ ...created, setPasswordLink: { ...created.setPasswordLink, emailed: true } }} onDone={vi.fn()} />);
    expect(screen.getByRole('alert').textContent).toMatch(/also emailed/);
  });
});

import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { channelsFor } from '../../api/channels';
import { CATALOGUE } from '../../api/channels-fixture';
import { ApiError } from '../../api/client';
import { ActionList, SEVERITY_CHOICES } from './action-list';
import { ConditionsEditor } from './condition-editor';
import { bodyOf, convert, draftOf, type ActionDraft, type Condition } from './workflow-fns';

afterEach(cleanup);

/** The editor as a page holds it: the value in state; `seen` is what the last change produced. */
function Conditions({ initial = null, error = null, seen }: { initial?: Condition | null; error?: unknown; seen: { value: Condition | null } }) {
  const [value, setValue] = useState<Condition | null>(initial);
  return <ConditionsEditor value={value} error={error} fields={['title', 'labels.env']} onChange={(c) => { seen.value = c; setValue(c); }} />;
}

function Actions({ initial, error = null, seen }: { initial: ActionDraft[]; error?: unknown; seen: { value: ActionDraft[] } }) {
  const [value, setValue] = useState(initial);
  const choices = { schedules: [{ value: 'sch_1', label: 'Primary' }], users: [], policies: [], severities: SEVERITY_CHOICES };
  return <ActionList actions={value} error={error} choices={choices} channels={channelsFor(CATALOGUE, 'workflow')} onChange={(a) => { seen.value = a; setValue(a); }} />;
}

describe('ConditionsEditor', () => {
  it('builds a tree: a condition, an any-group inside, list values typed with commas', () => {
    const seen = { value: null as Condition | null };
    render(<Conditions seen={seen} />);
    fireEvent.click(screen.getByRole('button', { name: 'Add a condition' }));
    fireEvent.change(screen.getByLabelText('Field'), { target: { value: 'labels.env' } });
    fireEvent.change(screen.getByLabelText('Value'), { target: { value: 'prod' } });
    expect(seen.value).toEqual({ all: [{ field: 'labels.env', op: 'eq', value: 'prod' }] });

    fireEvent.click(screen.getByRole('button', { name: 'Add group' }));
    const leaves = () => screen.getAllByLabelText('Field');
    fireEvent.change(leaves()[1] as HTMLElement, { target: { value: 'severity' } });
    fireEvent.change(screen.getAllByLabelText('Operator')[1] as HTMLElement, { target: { value: 'in' } });
    const values = screen.getByLabelText('Values');
    fireEvent.change(values, { target: { value: 'critical, high,' } });
    expect(values).toHaveProperty('value', 'critical, high,');
    expect(seen.value).toEqual({ all: [{ field: 'labels.env', op: 'eq', value: 'prod' }, { any: [{ field: 'severity', op: 'in', value: ['critical', 'high'] }] }] });

    // The field box suggests what the page passed (alert fields, recent label keys).
    expect((leaves()[0] as HTMLInputElement).getAttribute('list')).toBe('condition-fields');
    expect(document.querySelectorAll('#condition-fields option')).toHaveLength(2);
  });

  it('turns a group into a not and back, keeping its first member; removing the root matches every alert', () => {
    const seen = { value: null as Condition | null };
    render(<Conditions seen={seen} initial={{ any: [{ field: 'title', op: 'contains', value: 'disk' }] }} />);
    fireEvent.change(screen.getAllByLabelText('Kind')[0] as HTMLElement, { target: { value: 'not' } });
    expect(seen.value).toEqual({ not: { field: 'title', op: 'contains', value: 'disk' } });
    fireEvent.change(screen.getAllByLabelText('Kind')[0] as HTMLElement, { target: { value: 'all' } });
    expect(seen.value).toEqual({ all: [{ field: 'title', op: 'contains', value: 'disk' }] });
    fireEvent.click(screen.getAllByRole('button', { name: 'Remove' })[0] as HTMLElement);
    expect(seen.value).toBeNull();
    expect(screen.getByText(/every alert of the trigger matches/)).toBeTruthy();
  });

  it('shows a problem the API names beside its field', () => {
    const error = new ApiError(400, { error: 'Workflow is invalid', code: 'VALIDATION_ERROR', details: [{ path: '/conditions/all/1/value', message: 'is not a valid RE2 regular expression' }] });
    render(<Conditions seen={{ value: null }} error={error} initial={{ all: [{ field: 'title', op: 'eq', value: 'x' }, { field: 'title', op: 'matches', value: '(' }] }} />);
    const members = screen.getAllByTestId('condition').slice(1);
    expect(within(members[1] as HTMLElement).getByRole('alert').textContent).toContain('Value is not a valid RE2 regular expression');
    expect(within(members[0] as HTMLElement).queryByRole('alert')).toBeNull();
  });
});

describe('ActionList', () => {
  it('adds an action of a type from the table, moves it up, removes one, and edits each type\'s fields', () => {
    const seen = { value: [] as ActionDraft[] };
    render(<Actions seen={seen} initial={[{ type: 'create_incident', groupBy: [], title: '{{alert.title}}' }]} />);
    fireEvent.change(screen.getByLabelText('New action'), { target: { value: 'email' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add action' }));
    fireEvent.change(screen.getByLabelText('To'), { target: { value: 'ops@example.com, ' } });
    fireEvent.change(screen.getByLabelText('And the on-call of'), { target: { value: 'sch_1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Move action 2 up' }));
    expect(seen.value).toEqual([
      { type: 'email', to: ['ops@example.com'], toOnCall: 'sch_1', subject: '' },
      { type: 'create_incident', groupBy: [], title: '{{alert.title}}' },
    ]);
    expect(screen.getAllByTestId('action').map((a) => a.querySelector('legend')?.textContent)).toEqual(['1. Send an email', '2. Create or join an incident']);
    fireEvent.click(screen.getByRole('button', { name: 'Remove action 1' }));
    expect(seen.value.map((a) => a.type)).toEqual(['create_incident']);
  });

  it('posts to a channel of the catalogue: choosing one shows its target\'s fields, and its problems beside them', () => {
    const seen = { value: [] as ActionDraft[] };
    const error = new ApiError(400, { error: 'Workflow is invalid', code: 'VALIDATION_ERROR', details: [{ path: '/actions/0/target/topic', message: 'must match pattern' }] });
    render(<Actions seen={seen} error={error} initial={[]} />);
    fireEvent.change(screen.getByLabelText('New action'), { target: { value: 'notify' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add action' }));
    const channel = screen.getByLabelText('Channel') as HTMLSelectElement;
    // Only the catalogue's workflow channels.
    expect([...channel.options].map((o) => o.value)).toEqual(['', 'slack', 'ntfy']);
    fireEvent.change(channel, { target: { value: 'ntfy' } });
    fireEvent.change(screen.getByLabelText('Server URL'), { target: { value: 'https://ntfy.example.com' } });
    fireEvent.change(screen.getByLabelText('Topic'), { target: { value: 'ops pages' } });
    expect(seen.value).toEqual([{ type: 'notify', channel: 'ntfy', target: { serverUrl: 'https://ntfy.example.com', topic: 'ops pages' } }]);
    expect((screen.getByLabelText('Access token (optional)') as HTMLInputElement).type).toBe('password');
    expect(screen.getByText(/must match pattern/)).toBeTruthy();
  });

  it('shows a type it does not know by name, and the API\'s problems beside each action\'s field', () => {
    const error = new ApiError(400, { error: 'Workflow is invalid', code: 'VALIDATION_ERROR', details: [{ path: '/actions/0/url', message: 'must be http or https' }] });
    render(<Actions seen={{ value: [] }} error={error} initial={[{ type: 'webhook', url: 'ftp://x', secret: '********' }, { type: 'escalate_later', policyId: 'p' }]} />);
    const [webhook, unknown] = screen.getAllByTestId('action') as [HTMLElement, HTMLElement];
    expect(within(webhook).getByRole('alert').textContent).toContain('URL must be http or https');
    expect(unknown.textContent).toContain('escalate_later');
    expect(unknown.textContent).toContain('edit it in the JSON view');
  });
});

describe('workflow-fns', () => {
  it('sends what the API expects: empty optional fields left out, a blank description as null', () => {
    const draft = { ...draftOf(null), name: 'x', actions: [{ type: 'email', to: ['a@b.c'], toOnCall: null, subject: '' }, { type: 'assign', scheduleId: 'sch_1', userId: null }] };
    expect(bodyOf(draft)).toEqual({
      name: 'x', description: null, enabled: false, trigger: 'alert.created', conditions: null,
      actions: [{ type: 'email', to: ['a@b.c'] }, { type: 'assign', scheduleId: 'sch_1' }],
    });
  });

  it('converts a leaf into a group holding it, and a group into a leaf as its first member', () => {
    const leaf = { field: 'title', op: 'eq' as const, value: 'x' };
    expect(convert(leaf, 'any')).toEqual({ any: [leaf] });
    expect(convert({ all: [leaf, { field: 'source', op: 'exists' as const }] }, 'leaf')).toEqual(leaf);
    expect(convert({ not: { any: [leaf] } }, 'leaf')).toEqual({ field: '', op: 'eq', value: '' });
  });
});

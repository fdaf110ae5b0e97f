import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api/client';
import type { Mapping, Preview } from '../../api/types';
import { MappingEditor } from './mapping-editor';

afterEach(cleanup);

const initial: Mapping = { itemsPath: 'alerts', fields: { title: 'labels.alertname', 'labels.host': ['labels.instance', 'labels.host'] }, severityMap: { warning: 'medium' } };
const sample = { alerts: [{ labels: { alertname: 'DiskFull', instance: 'db1' } }] };
const okPreview: Preview = {
  ok: true,
  errors: [],
  alerts: [{ title: 'DiskFull', severity: 'medium', status: 'firing', source: null, description: null, fingerprint: 'f1', labels: { host: 'db1' }, annotations: {}, clientId: null }],
};

function setup(preview = vi.fn(async () => okPreview), extra: Partial<Parameters<typeof MappingEditor>[0]> = {}) {
  const onSave = vi.fn();
  render(<MappingEditor initial={initial} samples={[{ label: 'Preset sample', text: JSON.stringify(sample) }]} preview={preview}
    onSave={onSave} saving={false} saveError={null} saved={false} debounceMs={0} {...extra} />);
  return { preview, onSave };
}

describe('MappingEditor', () => {
  it('shows the saved mapping as a form: items path, field paths in order, value maps', () => {
    setup();
    expect(screen.getByLabelText('Items path')).toHaveProperty('value', 'alerts');
    expect(screen.getByLabelText('Target 1')).toHaveProperty('value', 'title');
    expect(screen.getByLabelText('Source paths 2')).toHaveProperty('value', 'labels.instance, labels.host');
    expect(screen.getByLabelText('Severity 1')).toHaveProperty('value', 'medium');
  });

  it('previews the sample with the edited, unsaved mapping and shows the normalized alerts', async () => {
    const { preview } = setup();
    await screen.findByTestId('preview-alerts');
    fireEvent.change(screen.getByLabelText('Source paths 1'), { target: { value: 'labels.summary' } });
    await waitFor(() => expect(preview).toHaveBeenLastCalledWith(sample, { ...initial, fields: { ...initial.fields, title: 'labels.summary' } }, expect.anything()));
    expect(within(screen.getByTestId('preview-alerts')).getByText(/1 alert would be stored/)).toBeTruthy();
  });

  it('names the path ingest would refuse', async () => {
    setup(vi.fn(async () => ({ ok: false, alerts: [], errors: [{ path: '/alerts/0/title', message: 'is required' }] })));
    const box = await screen.findByTestId('preview-errors');
    expect(box.textContent).toContain('/alerts/0/title');
    expect(box.textContent).toContain('is required');
  });

  it('says when the sample is not JSON, without calling the API', async () => {
    const { preview } = setup();
    await screen.findByTestId('preview-alerts');
    preview.mockClear();
    fireEvent.change(screen.getByLabelText('Sample payload (JSON)'), { target: { value: '{nope' } });
    expect(await screen.findByText(/not valid JSON/)).toBeTruthy();
    expect(preview).not.toHaveBeenCalled();
  });

  it('adds a severity row and saves the mapping the form describes', async () => {
    const { onSave } = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Add severity map row' }));
    fireEvent.change(screen.getByLabelText('Sender value 2'), { target: { value: 'page' } });
    fireEvent.change(screen.getByLabelText('Severity 2'), { target: { value: 'critical' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save mapping' }));
    expect(onSave).toHaveBeenCalledWith({ ...initial, severityMap: { warning: 'medium', page: 'critical' } });
  });

  it('edits the raw JSON and the form follows; invalid JSON blocks saving', () => {
    const { onSave } = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Raw JSON' }));
    const json = screen.getByLabelText('Mapping as JSON');
    fireEvent.change(json, { target: { value: '{"fields":{"title":"msg"}}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Form' }));
    expect(screen.getByLabelText('Source paths 1')).toHaveProperty('value', 'msg');
    expect(screen.queryByLabelText('Items path')).toHaveProperty('value', '');
    fireEvent.click(screen.getByRole('button', { name: 'Raw JSON' }));
    fireEvent.change(screen.getByLabelText('Mapping as JSON'), { target: { value: '[1]' } });
    expect(screen.getByText(/must be a JSON object/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Save mapping' })).toHaveProperty('disabled', true);
    expect(onSave).not.toHaveBeenCalled();
  });

  it('shows a save error next to the part of the mapping it names', () => {
    const saveError = new ApiError(400, { error: 'Request body is invalid', code: 'VALIDATION_ERROR', details: [{ path: '/mapping/itemsPath', message: 'must be a path' }] });
    setup(undefined, { saveError });
    const input = screen.getByLabelText('Items path');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const described = document.getElementById(String(input.getAttribute('aria-describedby')).split(' ').pop() as string);
    expect(described?.textContent).toContain('must be a path');
  });
});

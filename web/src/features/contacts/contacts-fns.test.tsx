import { describe, expect, it } from 'vitest';
import type { ContactMethod } from '../../api/types';
import { createBody, draftOf, MASK, move, reach, rulesOf, targetOf } from './contacts-fns';

const ntfy = { id: 'cm_1', type: 'ntfy', label: 'Phone', target: { serverUrl: 'https://ntfy.example.com', topic: 'pages', token: MASK }, createdAt: '', updatedAt: '' } as ContactMethod;

describe('contact method form helpers', () => {
  it('sends the type\'s fields only, trimmed, an empty optional one left out', () => {
    expect(targetOf({ type: 'ntfy', label: '', fields: { serverUrl: ' https://n.example.com ', topic: 'a', token: '', to: 'stale@x.test' } }))
      .toEqual({ serverUrl: 'https://n.example.com', topic: 'a' });
    // A required field left empty is sent empty, for the API to name.
    expect(targetOf({ type: 'email', label: '', fields: {} })).toEqual({ to: '' });
    expect(createBody({ type: 'email', label: '  ', fields: { to: 'a@b.test' } })).toEqual({ type: 'email', target: { to: 'a@b.test' } });
    expect(createBody({ type: 'slack', label: 'Ops', fields: { webhookUrl: 'https://hooks.slack.com/x' } })).toEqual({ type: 'slack', label: 'Ops', target: { webhookUrl: 'https://hooks.slack.com/x' } });
  });

  it('edits a method with its mask in place, so saving keeps the stored secret', () => {
    const d = draftOf(ntfy);
    expect(targetOf(d)).toEqual({ serverUrl: 'https://ntfy.example.com', topic: 'pages', token: MASK });
    expect(targetOf({ ...d, fields: { ...d.fields, token: '' } })).toEqual({ serverUrl: 'https://ntfy.example.com', topic: 'pages' });
  });

  it('says what a method reaches without any secret', () => {
    expect(reach(ntfy)).toBe('https://ntfy.example.com · topic pages · with token');
    expect(reach({ ...ntfy, type: 'webhook', target: { url: 'https://h.example.com' } } as ContactMethod)).toBe('https://h.example.com');
  });

  it('turns rule rows into rules; minutes that are not a whole number are left for the API to refuse', () => {
    expect(rulesOf([{ contactMethodId: 'a', minutes: ' 3 ' }, { contactMethodId: 'b', minutes: '0' }])).toEqual([{ contactMethodId: 'a', afterMinutes: 3 }, { contactMethodId: 'b', afterMinutes: 0 }]);
    expect(rulesOf([{ contactMethodId: 'a', minutes: '1.5' }])[0]?.afterMinutes).toBeNaN();
    expect(move(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
  });
});

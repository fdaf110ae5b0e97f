import { describe, expect, it } from 'vitest';
import { channelNamed } from '../../api/channels';
import { CATALOGUE } from '../../api/channels-fixture';
import type { ContactMethod } from '../../api/types';
import { createBody, draftOf, MASK, move, reach, rulesOf, targetOf } from './contacts-fns';

const ntfyInfo = channelNamed(CATALOGUE, 'ntfy');
const ntfy = { id: 'cm_1', type: 'ntfy', label: 'Phone', target: { serverUrl: 'https://ntfy.example.com', topic: 'pages', token: MASK }, createdAt: '', updatedAt: '' } as ContactMethod;

describe('contact method form helpers', () => {
  it('builds the body from the type\'s catalogue fields', () => {
    expect(createBody({ type: 'email', label: '  ', fields: { to: 'a@b.test' } }, channelNamed(CATALOGUE, 'email'))).toEqual({ type: 'email', target: { to: 'a@b.test' } });
    expect(createBody({ type: 'slack', label: 'Ops', fields: { webhookUrl: 'https://hooks.slack.com/x' } }, channelNamed(CATALOGUE, 'slack')))
      .toEqual({ type: 'slack', label: 'Ops', target: { webhookUrl: 'https://hooks.slack.com/x' } });
  });

  it('edits a method with its mask in place, so saving keeps the stored secret', () => {
    const d = draftOf(ntfy);
    expect(targetOf(d, ntfyInfo)).toEqual({ serverUrl: 'https://ntfy.example.com', topic: 'pages', token: MASK });
    expect(targetOf({ ...d, fields: { ...d.fields, token: '' } }, ntfyInfo)).toEqual({ serverUrl: 'https://ntfy.example.com', topic: 'pages' });
  });

  it('says what a method reaches without any secret', () => {
    expect(reach(ntfy, ntfyInfo)).toBe('https://ntfy.example.com · pages · with access token');
  });

  it('turns rule rows into rules; minutes that are not a whole number are left for the API to refuse', () => {
    expect(rulesOf([{ contactMethodId: 'a', minutes: ' 3 ' }, { contactMethodId: 'b', minutes: '0' }])).toEqual([{ contactMethodId: 'a', afterMinutes: 3 }, { contactMethodId: 'b', afterMinutes: 0 }]);
    expect(rulesOf([{ contactMethodId: 'a', minutes: '1.5' }])[0]?.afterMinutes).toBeNaN();
    expect(move(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
  });
});

import { describe, expect, it } from 'vitest';
import { blankTarget, channelNamed, channelsFor, cleanTarget, reachOf } from './channels';
import { CATALOGUE } from './channels-fixture';

const ntfy = channelNamed(CATALOGUE, 'ntfy');

describe('forms from the channel catalogue', () => {
  it('sends the channel\'s fields only, trimmed, an empty optional one left out, an empty required one kept for the API to name', () => {
    expect(cleanTarget(ntfy, { serverUrl: ' https://n.example.com ', topic: 'a', token: '', to: 'stale@x.test' })).toEqual({ serverUrl: 'https://n.example.com', topic: 'a' });
    expect(cleanTarget(channelNamed(CATALOGUE, 'email'), {})).toEqual({ to: '' });
    // While typing: nothing trimmed.
    expect(cleanTarget(ntfy, { serverUrl: 'a ', topic: 'b', token: ' ' }, false)).toEqual({ serverUrl: 'a ', topic: 'b', token: ' ' });
  });

  it('starts blank with the required fields, and picks the channels of a use', () => {
    expect(blankTarget(ntfy)).toEqual({ serverUrl: '', topic: '' });
    expect(channelsFor(CATALOGUE, 'workflow').map((c) => c.type)).toEqual(['slack', 'ntfy']);
  });

  it('says what a target reaches without any secret', () => {
    expect(reachOf(ntfy, { serverUrl: 'https://ntfy.example.com', topic: 'pages', token: '********' })).toBe('https://ntfy.example.com · pages · with access token');
    expect(reachOf(channelNamed(CATALOGUE, 'webhook'), { url: 'https://h.example.com' })).toBe('https://h.example.com');
  });
});

import { describe, expect, it } from 'vitest';
import { actorText } from './actors';

describe('actors in words', () => {
  const users = new Map([['usr_1', 'Ada <ada@acme.test>']]);
  const named = new Map([['api_key:key_1', 'API key “Terraform”'], ['integration:int_1', 'integration “Prometheus”']]);

  it('names members, API keys and integrations', () => {
    expect(actorText(users, named, { type: 'user', id: 'usr_1' })).toBe('Ada <ada@acme.test>');
    expect(actorText(users, named, { type: 'api_key', id: 'key_1' })).toBe('API key “Terraform”');
    expect(actorText(users, named, { type: 'integration', id: 'int_1' })).toBe('integration “Prometheus”');
  });

  it('falls back to the type and id, and to the type alone', () => {
    expect(actorText(users, named, { type: 'api_key', id: 'key_gone' })).toBe('api key key_gone');
    expect(actorText(users, named, { type: 'system', id: null })).toBe('system');
    expect(actorText(users, named, null)).toBe('—');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { passwords } from '../../src/modules/users/passwords.ts';

describe('password hashes', () => {
  it('are argon2id over 64 MiB, 3 passes, 4 lanes unless the operator says otherwise', async () => {
    const hash = await passwords(loadConfig({}).passwordHashMemoryKib).hash('correct horse battery staple');
    const [, type, , params] = hash.split('$');
    assert.equal(type, 'argon2id');
    assert.deepEqual(Object.fromEntries((params as string).split(',').map((p) => p.split('='))), { m: '65536', t: '3', p: '4' });
  });

  it('made with another memory setting still match after the setting changes', async () => {
    const old = await passwords(1024).hash('correct horse battery staple');
    const now = passwords(65_536);
    assert.equal(await now.verify(old, 'correct horse battery staple'), true);
    assert.equal(await now.verify(old, 'correct horse battery stapler'), false);
  });

  it('refuse a memory setting below 1 MiB at start', () => {
    assert.throws(() => loadConfig({ PASSWORD_HASH_MEMORY_KIB: '512' }), /PASSWORD_HASH_MEMORY_KIB/);
  });
});

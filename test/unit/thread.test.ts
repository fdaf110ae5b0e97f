import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { threadClient } from '../../src/lib/thread.ts';

type Req = { echo?: string; fail?: string; exit?: boolean; wait?: number };
const fixture = new URL('../support/thread-fixture.ts', import.meta.url);

// The mail thread (docs/architecture.md) rests on these: an SMTP refusal must keep its reply code to be final, and
// a thread that dies must fail its emails (to be retried), not leave their deliveries waiting forever.
describe('worker threads (lib/thread.ts)', () => {
  it('answers each request with its own result, several at once', async () => {
    const t = threadClient<Req, { echo: string }>(fixture, null);
    try {
      const answers = await Promise.all([t.run({ echo: 'a', wait: 30 }), t.run({ echo: 'b' }), t.run({ echo: 'c', wait: 10 })]);
      assert.deepEqual(answers.map((a) => a.echo), ['a', 'b', 'c']);
    } finally {
      await t.close();
    }
  });

  it('an error thrown in the thread arrives with its message and its plain properties (an SMTP reply code)', async () => {
    const t = threadClient<Req, unknown>(fixture, null);
    try {
      await assert.rejects(t.run({ fail: '550 mailbox unavailable' }), (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.equal(err.message, '550 mailbox unavailable');
        const e = err as Error & { code?: unknown; responseCode?: unknown; socket?: unknown };
        assert.equal(e.code, 'EENVELOPE');
        assert.equal(e.responseCode, 550);
        assert.equal(e.socket, undefined, 'what cannot cross stays behind');
        return true;
      });
      assert.deepEqual(await t.run({ echo: 'still here' }), { echo: 'still here' });
    } finally {
      await t.close();
    }
  });

  it('a thread that dies fails the requests it held, and the next request starts a new one', async () => {
    const t = threadClient<Req, { echo: string }>(fixture, null);
    try {
      const held = t.run({ echo: 'held', wait: 5_000 });
      await assert.rejects(t.run({ exit: true }), /exited \(3\)/);
      await assert.rejects(held, /exited \(3\)/);
      assert.deepEqual(await t.run({ echo: 'again' }), { echo: 'again' });
    } finally {
      await t.close();
    }
  });

  it('a request in flight keeps the process alive until it is answered; an idle thread does not hold it', async () => {
    // A process with nothing else to wait for: as a command that emails a link and exits.
    const script = `import { threadClient } from ${JSON.stringify(new URL('../../src/lib/thread.ts', import.meta.url).href)};
      const t = threadClient(new URL(${JSON.stringify(fixture.href)}), null);
      console.log(JSON.stringify(await t.run({ echo: 'answered', wait: 300 })));`;
    const started = Date.now();
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'thread-')), 'command.mjs');
    await writeFile(file, script);
    const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 20_000 });
    assert.equal(stdout.trim(), '{"echo":"answered"}');
    assert.ok(Date.now() - started < 15_000, 'and the idle thread let it exit');
  });
});

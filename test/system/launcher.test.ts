import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { compiledEntry, sourceDigest, STAMP } from '../../bin/compiled.js';
import { startServer, stopAll, type ServerProcess } from '../support/process.ts';
import { createTestStore, type TestStore } from '../support/stores.ts';

/**
 * `npm start` runs the compiled build only when it was built from exactly the sources in src/: an edited
 * checkout must run its edits, never a stale dist/.
 */
describe('the launcher picks the compiled build only while it matches the sources', () => {
  let root: string;
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  const stampNow = () => write(`dist/${STAMP}`, sourceDigest(root));
  const entry = () => pathToFileURL(path.join(root, 'dist/cli/main.js')).href;

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'alertflow-launcher-'));
    write('src/cli/main.ts', 'export {};\n');
    write('src/modules/a.ts', 'export const a = 1;\n');
    write('dist/cli/main.js', 'export {};\n');
    stampNow();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('runs dist/ built from the current sources', () => {
    assert.equal(compiledEntry(root), entry());
  });

  it('runs the sources after a file was edited, added or removed since the build, and dist/ again once rebuilt', () => {
    write('src/modules/a.ts', 'export const a = 2;\n');
    assert.equal(compiledEntry(root), null, 'edited');
    stampNow();
    write('src/modules/b.ts', 'export const b = 1;\n');
    assert.equal(compiledEntry(root), null, 'added');
    stampNow();
    unlinkSync(path.join(root, 'src/modules/b.ts'));
    assert.equal(compiledEntry(root), null, 'removed');
    stampNow();
    assert.equal(compiledEntry(root), entry());
  });

  it('runs the sources when a file only moved to another directory', () => {
    unlinkSync(path.join(root, 'src/modules/a.ts'));
    write('src/lib/a.ts', 'export const a = 1;\n');
    assert.equal(compiledEntry(root), null);
  });

  it('runs the sources when the build is missing or was never stamped', () => {
    unlinkSync(path.join(root, `dist/${STAMP}`));
    assert.equal(compiledEntry(root), null, 'no stamp');
    stampNow();
    unlinkSync(path.join(root, 'dist/cli/main.js'));
    assert.equal(compiledEntry(root), null, 'no entry point');
  });
});

describe('a server started through the launcher', () => {
  let store: TestStore;
  let server: ServerProcess | undefined;
  after(async () => {
    try {
      await stopAll([server]);
    } finally {
      await store?.drop();
    }
  });

  it('runs the form the launcher chose, and says which when it starts listening', async () => {
    store = await createTestStore('sqlite');
    server = await startServer({ DATABASE_URL: store.url });
    const listening = server.logs().find((l) => l.msg === 'AlertFlow listening');
    assert.equal(listening?.build, compiledEntry() === null ? 'source' : 'compiled');
    assert.equal((await server.request('GET', '/api/v1/openapi.json')).status, 200);
  });
});

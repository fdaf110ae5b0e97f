import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../../src/cli/openapi.ts';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const GENERATOR = path.join(WEB, 'node_modules', '.bin', 'openapi-typescript');

describe("the dashboard's generated API client", () => {
  it('matches the OpenAPI document this build serves (else run `npm run gen:api` and commit web/)', async () => {
    assert.ok(existsSync(GENERATOR), `${GENERATOR} is missing: install the dashboard's dependencies (npm ci runs npm ci --prefix web)`);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'alertflow-gen-'));
    try {
      const doc = await openApiDocument();
      const docFile = path.join(dir, 'openapi.json');
      const typesFile = path.join(dir, 'schema.d.ts');
      writeFileSync(docFile, doc);
      execFileSync(GENERATOR, [docFile, '-o', typesFile], { cwd: WEB, stdio: 'pipe' });
      // A boolean check: a diff of two 1.5 MB documents would bury the message that says what to run.
      assert.ok(readFileSync(path.join(WEB, 'openapi.json'), 'utf8') === doc, 'web/openapi.json is stale');
      assert.ok(readFileSync(path.join(WEB, 'src', 'api', 'schema.d.ts'), 'utf8') === readFileSync(typesFile, 'utf8'), 'web/src/api/schema.d.ts is stale');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The README's quick start names dashboard places as "Label → …": each label must be one the navigation shows. */
describe('README quick start', () => {
  it('names only places the navigation has', () => {
    const nav = [...readFileSync(path.join(ROOT, 'web/src/app/layout.tsx'), 'utf8').matchAll(/\{ to: '[^']+', label: '([^']+)' \}/g)].map((m) => m[1]);
    assert.ok(nav.includes('Alerts') && nav.includes('API keys'), `the navigation's labels: ${nav.join(', ')}`);
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));
    const named = [...quickStart.matchAll(/(?:^|[.:;]\s+|^\d+\.\s+|\n\s*\d+\.\s+)([A-Z][A-Za-z ]*?) → /g)].map((m) => m[1] as string);
    assert.ok(named.length >= 2, `the quick start names places: ${named.join(', ')}`);
    for (const label of named) assert.ok(nav.includes(label), `README says "${label} →", the navigation has: ${nav.join(', ')}`);
  });
});

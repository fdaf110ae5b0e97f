// The server's compiled build (dist/, by `npm run build:server`, which `npm ci` runs) and when it may be used.
// Plain JavaScript on purpose: loading any .ts file starts Node's TypeScript stripper, whose resident cost is
// what running the compiled build saves.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Written into dist/ by the build: the digest of the sources it was compiled from. */
export const STAMP = '.source-digest';

/** One digest of every file under `root`/src (paths and contents), so any edit, addition or removal changes it. */
export function sourceDigest(root = ROOT) {
  const hash = createHash('sha256');
  const src = path.join(root, 'src');
  const files = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(src, path.join(e.parentPath, e.name)))
    .sort();
  for (const rel of files) {
    const body = readFileSync(path.join(src, rel));
    hash.update(`${rel}\0${body.length}\0`).update(body);
  }
  return hash.digest('hex');
}

/**
 * The compiled entry point when dist/ was built from exactly the sources now in src/, else null (the caller
 * then runs the sources): an edited checkout never runs a stale build.
 */
export function compiledEntry(root = ROOT) {
  const entry = path.join(root, 'dist/cli/main.js');
  let stamp;
  try {
    stamp = readFileSync(path.join(root, 'dist', STAMP), 'utf8');
  } catch {
    return null;
  }
  return existsSync(entry) && stamp === sourceDigest(root) ? pathToFileURL(entry).href : null;
}

/** Compiles src/ into a clean dist/ and stamps it with the digest of the sources it was compiled from. */
export function build(root = ROOT) {
  const digest = sourceDigest(root);
  rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) throw new Error(`tsc exited with ${tsc.status ?? tsc.signal}`);
  writeFileSync(path.join(root, 'dist', STAMP), digest);
}

if (import.meta.main) build();

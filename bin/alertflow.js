#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=12 --heap-growing-percent=10
// Runs the compiled build (dist/, made by `npm ci`) when it matches the sources, else the TypeScript sources
// directly (Node ≥ 22.18 strips their types): the build only saves the stripper's memory (docs/benchmarks.md,
// "Compiled or stripped"), so an edited checkout runs what it holds without a rebuild.
// The line above is the one place the server's V8 flags and memory environment are set (`npm start` runs this
// file; the bench and the tests' server processes read them from here). A 12 MiB young generation and a heap
// that grows by 10 % after each full collection (V8's default grows it far more) keep resident memory under load
// near 200 MiB, for more frequent full collections; there is deliberately no hard heap cap, as a burst of large
// bodies would then end the process (both measured in docs/benchmarks.md, "Memory under load"). Two malloc
// arenas instead of glibc's eight per core: Node's few threads do not contend for them, and fewer arenas hold
// fewer freed pages ("Compiled or stripped").
import { compiledEntry } from './compiled.js';

await import(compiledEntry() ?? '../src/cli/main.ts');

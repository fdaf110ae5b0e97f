/**
 * What a dashboard session costs: the time of one sign-in (an argon2id verification, the session row and
 * its audit event) and the throughput and latency of a REST read with the session cookie next to the same
 * read with a bearer key, on a real server process per store.
 *
 *   npm run bench:sessions [-- --store sqlite|postgres --duration 10 --connections 10 --sign-ins 20]
 *
 * Prints a table; docs/benchmarks.md ("Dashboard sessions") records a run by hand.
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import {
  childEnv, cliJson, freshStore, HOST, log, machine, releaseAll, SERVER_NODE_FLAGS, startServer, wholeNumber, type StoreKind,
} from './support.ts';

const PASSWORD = 'a long enough bench password';

function usage(message: string): never {
  process.stderr.write(`bench/sessions.ts: ${message}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: { store: { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string' }, 'sign-ins': { type: 'string' } },
  strict: true,
});
if (values.store !== undefined && values.store !== 'sqlite' && values.store !== 'postgres') usage('--store must be sqlite or postgres');
const kinds: StoreKind[] = values.store ? [values.store as StoreKind] : ['sqlite', 'postgres'];
const duration = wholeNumber(values.duration, '--duration', 10, usage);
const connections = wholeNumber(values.connections, '--connections', 10, usage);
const signIns = wholeNumber(values['sign-ins'], '--sign-ins', 20, usage);

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;

async function signIn(base: string): Promise<{ cookie: string; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.test', password: PASSWORD }),
  });
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`sign-in → ${res.status}: ${await res.text()}`);
  return { cookie: (res.headers.get('set-cookie') as string).split(';')[0] as string, ms };
}

async function read(base: string, headers: Record<string, string>) {
  const r = await autocannon({ url: `${base}/api/v1/alerts?limit=25`, headers, connections, duration });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx and ${r.errors} errors`);
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99 };
}

async function run(kind: StoreKind): Promise<string[]> {
  const store = await freshStore(kind);
  const env = childEnv(store.databaseUrl);
  const org = await cliJson<{ apiKey: string }>(['org', 'create', '--name', 'Bench', '--owner-email', 'bench@example.test', '--owner-password', PASSWORD, '--json'], env);
  const server = await startServer({ ...env, RATE_LIMIT_SIGN_IN_FAILURES_PER_ADDRESS: '1000' }, SERVER_NODE_FLAGS);
  const base = `http://${HOST}:${server.port}`;
  try {
    const times: number[] = [];
    let cookie = '';
    for (let i = 0; i < signIns; i++) ({ cookie, ms: times[i] } = await signIn(base));
    times.sort((a, b) => a - b);
    log(`${kind}: ${signIns} sign-ins done; reading with a key, then with the cookie`);
    const key = await read(base, { authorization: `Bearer ${org.apiKey}` });
    const session = await read(base, { cookie });
    return [
      `| ${kind} | sign-in (sequential, ${signIns}) | p50 ${percentile(times, 0.5).toFixed(0)} ms, p95 ${percentile(times, 0.95).toFixed(0)} ms |`,
      `| ${kind} | GET /alerts?limit=25, bearer key | ${key.rps} req/s, p50 ${key.p50} ms, p99 ${key.p99} ms |`,
      `| ${kind} | GET /alerts?limit=25, session cookie | ${session.rps} req/s, p50 ${session.p50} ms, p99 ${session.p99} ms |`,
    ];
  } finally {
    await server.release();
    await store.release();
  }
}

try {
  const m = await machine();
  const rows: string[] = [];
  for (const kind of kinds) rows.push(...(await run(kind)));
  process.stdout.write(`At ${m.revision} on ${m.cpus}× ${m.cpuModel}, ${connections} connections, ${duration} s per read:\n\n| store | what | result |\n|---|---|---|\n${rows.join('\n')}\n`);
} finally {
  await releaseAll();
}

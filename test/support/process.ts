import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OpenApiChecker } from './openapi.ts';

/**
 * The real service as separate OS processes: `node bin/alertflow.js …`, the launcher `npm start` and `npx alertflow`
 * run, configured only by environment variables. Every process started here is tracked, so `after()` hooks can
 * stop whatever is still running even when a test failed half-way; only processes started here are ever
 * signalled, by their PID.
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN = path.join(ROOT, 'bin/alertflow.js');
const SHEBANG = (readFileSync(MAIN, 'utf8').split('\n')[0] as string).split(/\s+/);
/**
 * The Node flags the server ships with: its launcher's shebang is their one source (`npm start` runs it), so
 * servers started here and by the bench run as users run them.
 */
export const SERVER_NODE_FLAGS: readonly string[] = SHEBANG.filter((t) => t.startsWith('--'));
/** The environment that shebang sets before Node starts (glibc reads MALLOC_ARENA_MAX only then). */
export const SERVER_ENV: Readonly<Record<string, string>> = Object.fromEntries(SHEBANG.flatMap((t) => {
  const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(t);
  return m ? [[m[1], m[2]]] : [];
}));

/** Defaults for every child: test keys, info logs, loopback only, a free port, rate limits lifted. */
export const BASE_ENV: Readonly<Record<string, string>> = {
  ALERTFLOW_ENV: 'test',
  LOG_LEVEL: 'info',
  HOST: '127.0.0.1',
  PORT: '0',
  RATE_LIMIT_API_PER_MINUTE: '1000000',
  RATE_LIMIT_INGEST_PER_MINUTE: '1000000',
  RATE_LIMIT_API_KEYS_PER_DAY: '100000',
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '1000000',
  RATE_LIMIT_AUTH_FAILURES_PER_CREDENTIAL_PER_MINUTE: '1000000',
  // As in harness.ts: 1 MiB password hashes, the default being checked in test/unit/passwords.test.ts.
  PASSWORD_HASH_MEMORY_KIB: '1024',
};

/** Values set to undefined are left out, so a test can drop a default. */
export type ChildEnv = Record<string, string | undefined>;

/** A clean environment: nothing from the test runner's own configuration leaks into the child. */
function childEnv(env: ChildEnv): Record<string, string> {
  const out: Record<string, string> = {};
  // NODE_COMPILE_CACHE: `npm test` keeps Node's compiled code between its processes (docs/testing.md).
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'NODE_COMPILE_CACHE']) {
    const v = process.env[name];
    if (v !== undefined) out[name] = v;
  }
  for (const [k, v] of Object.entries({ ...SERVER_ENV, ...BASE_ENV, ...env })) {
    if (v !== undefined) out[k] = v;
  }
  return out;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface HttpRes {
  status: number;
  headers: Headers;
  body: any;
  raw: string;
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

const running = new Set<ChildProcess>();

// Last resort if the test process itself exits with children still running (e.g. a crashed hook).
process.on('exit', () => {
  for (const child of running) {
    if (child.pid !== undefined) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

function track(child: ChildProcess): Promise<Exit> {
  running.add(child);
  // 'close' comes after 'exit' and after stdout/stderr ended, so all output has been captured.
  return new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
    child.once('error', () => {
      running.delete(child);
      resolve({ code: null, signal: null });
    });
  });
}

export class ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<Exit>;
  port = 0;
  stdout = '';
  stderr = '';
  #exit: Exit | undefined;
  #waiters: Array<() => void> = [];

  constructor(child: ChildProcess) {
    this.child = child;
    this.pid = child.pid as number;
    child.stdout?.setEncoding('utf8').on('data', (s: string) => { this.stdout += s; this.#notify(); });
    child.stderr?.setEncoding('utf8').on('data', (s: string) => { this.stderr += s; this.#notify(); });
    this.exited = track(child).then((e) => {
      this.#exit = e;
      this.#notify();
      return e;
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  /** Everything the process wrote, stdout and stderr. */
  get output(): string {
    return `${this.stdout}${this.stderr}`;
  }

  /** The JSON log lines written to stdout so far. */
  logs(): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = [];
    for (const line of this.stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        out.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a partial line still being written
      }
    }
    return out;
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /**
   * Resolves with the first log line that matches, or rejects when the process exits first or
   * `timeoutMs` passes (a bounded wait for readiness, not an assertion on timing).
   */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching log line within ${timeoutMs} ms; output:\n${this.output}`)), timeoutMs);
      const check = () => {
        const line = this.logs().find(match);
        if (line) {
          clearTimeout(timer);
          resolve(line);
        } else if (this.#exit) {
          clearTimeout(timer);
          reject(new Error(`server exited (${JSON.stringify(this.#exit)}) before the expected log line; output:\n${this.output}`));
        } else {
          this.#waiters.push(check);
        }
      };
      check();
    });
  }

  /** Sends SIGTERM (only to this PID) and waits for the process to exit; SIGKILL if it does not within `timeoutMs`. */
  async stop(timeoutMs = 15_000): Promise<Exit> {
    if (this.#exit) return this.#exit;
    this.signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), timeoutMs); });
    const r = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (r !== 'timeout') return r;
    this.signal('SIGKILL');
    await this.exited;
    throw new Error(`server ${this.pid} did not exit within ${timeoutMs} ms of SIGTERM; output:\n${this.output}`);
  }

  signal(sig: NodeJS.Signals): void {
    if (this.#exit) return;
    try {
      process.kill(this.pid, sig);
    } catch {
      // exited in between
    }
  }

  async request(method: string, urlPath: string, opts: RequestOptions = {}): Promise<HttpRes> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.url}${urlPath}`, { method, headers, ...(body !== undefined && { body }) });
    const raw = await res.text();
    let parsed: unknown = null;
    if (raw !== '') {
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = raw;
      }
    }
    if (urlPath.startsWith('/api/v1/')) (await this.#openapi()).check(method, urlPath, res.status, raw);
    return { status: res.status, headers: res.headers, body: parsed, raw };
  }

  #checker: Promise<OpenApiChecker> | undefined;
  /** The document this very process serves, fetched once: its responses are checked against it. */
  #openapi(): Promise<OpenApiChecker> {
    this.#checker ??= fetch(`${this.url}/api/v1/openapi.json`).then(async (r) => new OpenApiChecker(await r.json() as never));
    return this.#checker;
  }
}

const isListening = (l: Record<string, unknown>) => l.msg === 'AlertFlow listening' && typeof l.port === 'number';

/**
 * How long a started server may take to listen. A deadline, not a measure: on a loaded two-core machine (three test
 * files, Chromium and PostgreSQL at once) one start took over 20 s to build its app (CI, contacts.test.ts).
 */
const START_TIMEOUT_MS = 60_000;

/** Starts `alertflow serve` and resolves once it logged that it is listening (PORT=0: it picks a free port). */
export async function startServer(env: ChildEnv, opts: { timeoutMs?: number; args?: string[] } = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, MAIN, 'serve', ...(opts.args ?? [])], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const server = new ServerProcess(child);
  try {
    const line = await server.waitForLog(isListening, opts.timeoutMs ?? START_TIMEOUT_MS);
    server.port = line.port as number;
  } catch (err) {
    server.signal('SIGKILL');
    await server.exited;
    throw err;
  }
  return server;
}

/** Stops every given server that is still running (SIGTERM, then wait); for `after()` hooks. */
export async function stopAll(servers: Array<ServerProcess | undefined>): Promise<void> {
  const errors: unknown[] = [];
  await Promise.all(servers.map(async (s) => {
    if (!s) return;
    try {
      await s.stop();
    } catch (err) {
      errors.push(err);
    }
  }));
  if (errors.length > 0) throw errors[0];
}

export interface CliResult extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs one CLI command to completion (killed, with code null, if it has not ended within `timeoutMs`). */
export async function runCli(args: string[], env: ChildEnv, opts: { timeoutMs?: number } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => { stdout += s; });
  child.stderr.setEncoding('utf8').on('data', (s: string) => { stderr += s; });
  const exited = track(child);
  // A one-shot command boots Node, opens the store and may hash a password: on a loaded 2-core machine, 15 s was seen to pass.
  const timer = setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
  }, opts.timeoutMs ?? 30_000);
  const exit = await exited;
  clearTimeout(timer);
  return { ...exit, stdout, stderr };
}

export interface CreatedOrg {
  org: { id: string; name: string };
  owner: { id: string; email: string };
  apiKey: string;
}

/** `alertflow org create --json` against the store at `databaseUrl`. */
export async function createOrg(databaseUrl: string, name = 'Acme', ownerEmail = 'owner@acme.test'): Promise<CreatedOrg> {
  const r = await runCli(['org', 'create', '--name', name, '--owner-email', ownerEmail, '--json'], { DATABASE_URL: databaseUrl });
  if (r.code !== 0) throw new Error(`org create failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as CreatedOrg;
}

/** Creates an integration through the REST API of `server`; returns its id, token and ingest path. */
export async function createIntegration(server: ServerProcess, key: string, name = 'test'): Promise<{ id: string; token: string; path: string }> {
  const r = await server.request('POST', '/api/v1/integrations', { key, body: { name } });
  if (r.status !== 201) throw new Error(`integration create failed: ${r.status} ${r.raw}`);
  return { id: r.body.data.id as string, token: r.body.data.token as string, path: `/api/inbound/webhook/${r.body.data.token as string}` };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `alertflow user add --json` into `orgId`: the member as the CLI prints it. */
export async function addMember(databaseUrl: string, orgId: string, email: string, name: string): Promise<{ id: string; email: string }> {
  const r = await runCli(['user', 'add', '--org', orgId, '--email', email, '--name', name, '--json'], { DATABASE_URL: databaseUrl });
  if (r.code !== 0) throw new Error(`user add failed (${r.code}): ${r.stderr}`);
  return (JSON.parse(r.stdout) as { user: { id: string; email: string } }).user;
}

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { STORE_KINDS, type StoreKind } from './stores.ts';

/**
 * A real Prometheus Alertmanager (Debian package `prometheus-alertmanager`, installed by `.ci/run`) as a
 * child process of the test: its own config file and storage in a temporary directory, the web API on a
 * free loopback port, no clustering. Only processes started here are ever signalled, by their PID; any
 * service the package may have registered is neither used nor touched.
 */

export const ALERTMANAGER_BIN = process.env.ALERTMANAGER_BIN ?? '/usr/bin/prometheus-alertmanager';

/** Set by `.ci/run`: a missing Alertmanager fails the suite instead of skipping its tests. */
export const ALERTMANAGER_REQUIRED = process.env.ALERTFLOW_REQUIRE_ALERTMANAGER === '1';

export const alertmanagerInstalled = (): boolean => existsSync(ALERTMANAGER_BIN);

/** An alert as `POST /api/v2/alerts` takes it. */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  generatorURL?: string;
}

/** An alert as `GET /api/v2/alerts` returns it (the fields used here). */
export interface GettableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  fingerprint: string;
  status: { state: string };
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) {
    try {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

export class Alertmanager {
  readonly child: ChildProcess;
  readonly dir: string;
  readonly exited: Promise<void>;
  url = '';
  output = '';
  #done = false;

  constructor(child: ChildProcess, dir: string) {
    this.child = child;
    this.dir = dir;
    running.add(child);
    child.stdout?.setEncoding('utf8').on('data', (s: string) => { this.output += s; });
    child.stderr?.setEncoding('utf8').on('data', (s: string) => { this.output += s; });
    this.exited = new Promise<void>((resolve) => {
      const done = () => {
        running.delete(child);
        this.#done = true;
        resolve();
      };
      child.once('close', done);
      child.once('error', done);
    });
  }

  get running(): boolean {
    return !this.#done;
  }

  /** The last lines Alertmanager logged, for failure messages. */
  tail(lines = 40): string {
    return this.output.trimEnd().split('\n').slice(-lines).join('\n');
  }

  async api(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any; raw: string }> {
    const res = await fetch(`${this.url}${urlPath}`, {
      method,
      ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const raw = await res.text();
    let parsed: unknown = null;
    try {
      parsed = raw === '' ? null : JSON.parse(raw);
    } catch {
      parsed = raw;
    }
    return { status: res.status, body: parsed, raw };
  }

  /** Pushes alerts as Prometheus does (`POST /api/v2/alerts`). */
  async push(alerts: PostableAlert[]): Promise<void> {
    const r = await this.api('POST', '/api/v2/alerts', alerts);
    if (r.status !== 200) throw new Error(`Alertmanager refused the alerts: ${r.status} ${r.raw}`);
  }

  /** The alerts Alertmanager holds, with the fingerprints it computed. */
  async alerts(): Promise<GettableAlert[]> {
    const r = await this.api('GET', '/api/v2/alerts');
    if (r.status !== 200) throw new Error(`GET /api/v2/alerts: ${r.status} ${r.raw}`);
    return r.body as GettableAlert[];
  }

  /** SIGTERM to this PID, SIGKILL if it has not exited within `timeoutMs`; then removes its directory. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.running && this.child.pid !== undefined) {
      try {
        process.kill(this.child.pid, 'SIGTERM');
      } catch {
        // exited in between
      }
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), timeoutMs); });
      const r = await Promise.race([this.exited, timeout]);
      clearTimeout(timer);
      if (r === 'timeout') {
        try {
          process.kill(this.child.pid, 'SIGKILL');
        } catch {
          // exited in between
        }
        await this.exited;
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface AlertmanagerOptions {
  /** Where the one webhook receiver posts (send_resolved on). */
  webhookUrl?: string;
  /** Or the whole configuration file, as YAML text (used as it is). */
  config?: string;
  /** Route `group_by` (default: per alertname). */
  groupBy?: string[];
  timeoutMs?: number;
}

/**
 * Starts Alertmanager with a single route to one webhook receiver, 1 s group wait and interval (each
 * change reaches the receiver about a second later) and a long repeat interval (unchanged groups are not
 * re-sent), or with the given `config`. Resolves once `/-/ready` answers 200.
 */
export async function startAlertmanager(opts: AlertmanagerOptions): Promise<Alertmanager> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alertflow-am-'));
  // YAML is a superset of JSON: the config is written as JSON.
  const config = {
    route: {
      receiver: 'alertflow',
      group_by: opts.groupBy ?? ['alertname'],
      group_wait: '1s',
      group_interval: '1s',
      repeat_interval: '4h',
    },
    receivers: [{ name: 'alertflow', webhook_configs: [{ url: opts.webhookUrl, send_resolved: true }] }],
  };
  const configFile = path.join(dir, 'alertmanager.yml');
  writeFileSync(configFile, opts.config ?? JSON.stringify(config, null, 2));

  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const v = process.env[name];
    if (v !== undefined) env[name] = v;
  }
  const child = spawn(ALERTMANAGER_BIN, [
    `--config.file=${configFile}`,
    `--storage.path=${path.join(dir, 'data')}`,
    // Port 0: the kernel picks a free port, which Alertmanager logs ("Listening on" address=…).
    '--web.listen-address=127.0.0.1:0',
    '--cluster.listen-address=',
    '--log.level=debug',
  ], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const am = new Alertmanager(child, dir);

  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  try {
    while (am.url === '') {
      const m = /msg="Listening on" address=(127\.0\.0\.1:\d+)/.exec(am.output);
      if (m) am.url = `http://${m[1]}`;
      else if (!am.running) throw new Error(`Alertmanager exited before listening; output:\n${am.output}`);
      else if (Date.now() > deadline) throw new Error(`Alertmanager did not listen in time; output:\n${am.output}`);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (;;) {
      const ready = await fetch(`${am.url}/-/ready`).then((r) => r.status === 200, () => false);
      if (ready) break;
      if (!am.running || Date.now() > deadline) throw new Error(`Alertmanager not ready; output:\n${am.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (err) {
    await am.stop();
    throw err;
  }
  return am;
}

/**
 * `suite` once per store, the stores side by side (each with its own server and Alertmanager) and each suite's steps
 * in order; without Alertmanager, a failing test when `.ci/run` requires it, else one skipped with the reason.
 */
export function describeWithAlertmanager(title: string, suite: (kind: StoreKind) => void): void {
  if (alertmanagerInstalled()) {
    describe(title, { concurrency: STORE_KINDS.length }, () => {
      for (const kind of STORE_KINDS) describe(kind, { concurrency: 1 }, () => suite(kind));
    });
  } else if (ALERTMANAGER_REQUIRED) {
    it('Prometheus Alertmanager is installed (ALERTFLOW_REQUIRE_ALERTMANAGER=1)', () => {
      throw new Error(`${ALERTMANAGER_BIN} is missing; install the Debian package prometheus-alertmanager (.ci/run does)`);
    });
  } else {
    // Counted as skipped in the summary, with the reason, so a developer without Alertmanager sees it.
    it(title, { skip: `Prometheus Alertmanager is not installed at ${ALERTMANAGER_BIN} (Debian package prometheus-alertmanager; .ci/run installs it)` }, () => {});
  }
}

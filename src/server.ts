import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Config, StoreConfig } from './config.ts';
import { createContainer } from './container.ts';
import { API_VERSION, buildApp } from './http/app.ts';

/** What one `alertflow serve` process does: everything, only the HTTP API, or only the background work. */
export const SERVER_ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof SERVER_ROLES)[number];

/** Host and port of a URL, never its credentials. */
const hostOf = (url: string | undefined): string | null => (url ? new URL(url).host : null);

/** Where the data is, for the start-up log: the SQLite file, or PostgreSQL's host and database without the password. */
function describeStore(store: StoreConfig): Record<string, string> {
  if (store.kind === 'sqlite') return { kind: 'sqlite', path: store.file };
  const u = new URL(store.url);
  return { kind: 'postgres', host: u.host, database: decodeURIComponent(u.pathname.slice(1)), user: decodeURIComponent(u.username) };
}

/** Starts the HTTP server on a migrated store; resolves to a function that shuts it down gracefully. */
export async function startServer(config: Config, log: Logger, role: Role = 'all'): Promise<{ close: () => Promise<void>; port: number }> {
  // The role decides; JOB_WORKERS=false still turns the workers of the default role off, as it always did.
  const workers = role === 'worker' || (role === 'all' && config.jobs.workers);
  if (role === 'worker' && !config.jobs.workers) log.warn('JOB_WORKERS=false is ignored: --role worker runs the job workers');
  const container = await createContainer(config, { log, workers });
  if (role !== 'worker' && (await container.auth.setupNeeded())) {
    // The one place the setup token appears: a new one at every start of an empty store, the earlier link dead.
    const token = await container.auth.issueSetupToken();
    const link = `${config.baseUrl}/setup?token=${token}`;
    log.info(`No organization yet. Open ${link} to create the first one and its owner (works once), or use: npx alertflow org create --name "My Org" --owner-email you@example.com --json`);
    // Also for the person at the terminal, whose eye skips JSON: the link alone on its line, to copy whole.
    process.stderr.write(`\nNo organization yet. Open this link to create the first one (it works once):\n${link}\n\n`);
  }
  const app = await buildApp(container, log, { role });
  // A connection that has not sent a request yet is neither idle nor busy to Node: server.close() would wait
  // for it until the headers timeout (60 s), past any orchestrator's grace period. Shutdown drops such
  // connections, and those that arrive meanwhile; a request in progress still finishes.
  let closing = false;
  const unused = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy();
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  app.server.on('request', (req: { socket: Socket }) => unused.delete(req.socket));
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({
    port, version: API_VERSION, build: import.meta.url.endsWith('.js') ? 'compiled' : 'source', role, workers, store: describeStore(config.store),
    redis: hostOf(config.redisUrl), smtp: hostOf(config.smtpUrl), metrics: config.metricsToken !== undefined,
  }, 'AlertFlow listening');
  return {
    port,
    // Stop accepting, let in-flight requests finish (their transactions commit), then flush and close the store.
    close: async () => {
      closing = true;
      for (const socket of unused) socket.destroy();
      await app.close();
      await container.close();
    },
  };
}

import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createContainer } from './container.ts';
import { buildApp } from './http/app.ts';

/** Starts the HTTP server on a migrated store; resolves to a function that shuts it down gracefully. */
export async function startServer(config: Config, log: Logger): Promise<{ close: () => Promise<void>; port: number }> {
  const container = await createContainer(config, { log });
  if (await container.auth.setupNeeded()) {
    // The one place the setup token appears: a new one at every start of an empty store, the earlier link dead.
    const token = await container.auth.issueSetupToken();
    log.info(`No organization yet. Open ${config.baseUrl}/setup?token=${token} to create the first one and its owner (works once), or use: npx alertflow org create --name "My Org" --owner-email you@example.com --json`);
  }
  const app = await buildApp(container, log);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ port, store: config.store.kind, redis: Boolean(config.redisUrl) }, 'AlertFlow listening');
  return {
    port,
    // Stop accepting, let in-flight requests finish (their transactions commit), then flush and close the store.
    close: async () => {
      await app.close();
      await container.close();
    },
  };
}

import { writeFileSync } from 'node:fs';
import pino from 'pino';
import { loadConfig } from '../config.ts';
import { createContainer } from '../container.ts';
import { buildApp } from '../http/app.ts';

/**
 * The OpenAPI document this build serves, built in process on an empty in-memory store (no server, no
 * network): the one source of the dashboard's generated API types.
 */
export async function openApiDocument(): Promise<string> {
  const config = loadConfig({ DATABASE_URL: 'sqlite://:memory:', JOB_WORKERS: 'false', LOG_LEVEL: 'silent' });
  const log = pino({ level: 'silent' });
  const c = await createContainer(config, { log });
  try {
    const app = await buildApp(c, log);
    await app.ready();
    const doc = `${JSON.stringify(app.swagger(), null, 2)}\n`;
    await app.close();
    return doc;
  } finally {
    await c.close();
  }
}

// `node src/cli/openapi.ts FILE` (npm run gen:api) writes the document to FILE.
if (import.meta.main) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node src/cli/openapi.ts FILE\n');
    process.exit(2);
  }
  writeFileSync(file, await openApiDocument());
}

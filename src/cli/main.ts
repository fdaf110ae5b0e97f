import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { createContainer } from '../container.ts';
import { openMigratedStore } from '../db/migrations/index.ts';
import { AppError } from '../lib/errors.ts';
import { importReport } from './import-report.ts';
import { createLogger, errorSummary } from '../lib/logger.ts';
import { ROLES, type Role } from '../modules/users/users-schemas.ts';
import { SCOPES, type Scope } from '../modules/api-keys/api-keys-fns.ts';
import { SERVER_ROLES, startServer, type Role as ServerRole } from '../server.ts';

const USAGE = `Usage:
  alertflow serve [--role all|api|worker]
  alertflow migrate [--json]
  alertflow org create --name NAME [--owner-email E --owner-password P] --json
  alertflow user add --org ORG_ID --email E --name N [--role owner|admin|member] [--password P] --json
  alertflow key create --org ORG_ID --scopes SCOPE,SCOPE|all --name NAME --json
  alertflow import pagerduty|opsgenie|grafana-oncall --org ORG_ID --api-url URL --token TOKEN [--apply] [--json] [--create-users]`;

class UsageError extends Error {}

function flags(args: string[], options: Record<string, { type: 'string' | 'boolean' }>) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

const required = (v: Record<string, string | boolean | undefined>, name: string): string => {
  const value = v[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
};

function print(json: boolean, value: unknown, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

/**
 * A one-shot command's container: no job workers, relay or sweepers (they would do other organizations' work
 * from a CLI), and logs on stderr, so stdout holds only the command's output.
 */
async function withContainer<T>(config: Config, fn: (c: Awaited<ReturnType<typeof createContainer>>) => Promise<T>): Promise<T> {
  const c = await createContainer(config, { log: createLogger('warn', 'stderr'), workers: false });
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

async function serve(config: Config, args: string[]): Promise<void> {
  const role = (flags(args, { role: { type: 'string' } }).role ?? 'all') as ServerRole;
  if (!SERVER_ROLES.includes(role)) throw new UsageError('--role must be all, api or worker');
  const log = createLogger(config.logLevel);
  const server = await startServer(config, log, role);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.close().then(() => process.exit(0), (err: unknown) => {
      log.error({ error: errorSummary(err) }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Mints a key for an organization that lost every key that could: the recovery path, trusted like the owner. */
async function createKey(config: Config, args: string[]): Promise<void> {
  const v = flags(args, { org: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } });
  const orgId = required(v, 'org');
  const name = required(v, 'name').trim();
  if (name.length > 200) throw new AppError('VALIDATION_ERROR', '--name must be at most 200 characters');
  const listed = required(v, 'scopes').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const scopes = listed.length === 1 && listed[0] === 'all' ? [...SCOPES] : [...new Set(listed)];
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0 || scopes.length === 0) throw new AppError('VALIDATION_ERROR', `--scopes must be "all" or a comma-separated list of: ${SCOPES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  const key = await withContainer(config, async (c) => {
    if (!(await c.orgs.exists(orgId))) throw new AppError('NOT_FOUND', `no organization ${orgId}`);
    return c.apiKeys.create(orgId, { type: 'system', id: null }, { name, scopes: scopes as Scope[] }, null);
  });
  print(v.json === true, { apiKey: key }, `API key ${key.id} (${key.name}) created with scopes ${key.scopes.join(', ')}.\nKey (shown once): ${key.key}`);
}

/**
 * Reads another on-call tool and prints the plan, or applies it with --apply (docs/migration.md). The token goes
 * to the vendor's API only: it is not stored, logged or printed.
 */
async function importFrom(config: Config, system: string | undefined, args: string[]): Promise<void> {
  const v = flags(args, {
    org: { type: 'string' }, 'api-url': { type: 'string' }, token: { type: 'string' },
    apply: { type: 'boolean' }, json: { type: 'boolean' }, 'create-users': { type: 'boolean' },
  });
  if (system === undefined || system.startsWith('--')) throw new UsageError('import needs the system to read: pagerduty, opsgenie or grafana-oncall');
  const opts = {
    system,
    orgId: required(v, 'org'),
    apiUrl: required(v, 'api-url'),
    token: required(v, 'token'),
    apply: v.apply === true,
    createUsers: v['create-users'] === true,
  };
  const result = await withContainer(config, (c) => c.imports.run(opts));
  print(v.json === true, result, importReport(result));
}

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  const config = loadConfig();
  if (command === 'serve' || command === undefined) return serve(config, argv.slice(1));
  if (command === 'migrate') {
    const v = flags(argv.slice(1), { json: { type: 'boolean' } });
    const { store, applied } = await openMigratedStore(config.store);
    await store.close();
    print(v.json === true, { applied }, applied.length ? `applied: ${applied.join(', ')}` : 'up to date');
    return;
  }
  if (command === 'key' && sub === 'create') return createKey(config, rest);
  if (command === 'import') return importFrom(config, sub, rest);
  if (command === 'org' && sub === 'create') {
    const v = flags(rest, { name: { type: 'string' }, 'owner-email': { type: 'string' }, 'owner-password': { type: 'string' }, json: { type: 'boolean' } });
    const name = required(v, 'name');
    const out = await withContainer(config, (c) => c.orgs.create({
      name,
      ownerEmail: v['owner-email'] as string | undefined,
      ownerPassword: v['owner-password'] as string | undefined,
    }));
    print(v.json === true, out, `Organization ${out.org.id} created.\nOwner: ${out.owner.email}\nAPI key (shown once): ${out.apiKey}`);
    return;
  }
  if (command === 'user' && sub === 'add') {
    const v = flags(rest, { org: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' }, password: { type: 'string' }, json: { type: 'boolean' } });
    const orgId = required(v, 'org');
    const role = (v.role ?? 'member') as Role;
    if (!ROLES.includes(role)) throw new AppError('VALIDATION_ERROR', '--role must be owner, admin or member');
    const user = await withContainer(config, async (c) => {
      if (!(await c.orgs.exists(orgId))) throw new AppError('NOT_FOUND', `no organization ${orgId}`);
      return c.users.add(orgId, { email: required(v, 'email'), name: required(v, 'name'), role, password: v.password as string | undefined });
    });
    const { id, email, name } = user;
    print(v.json === true, { user: { id, email, name, role: user.role } }, `User ${id} (${email}) added as ${user.role}.`);
    return;
  }
  throw new UsageError(`unknown command: ${argv.join(' ')}`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) process.stderr.write(`alertflow: configuration error: ${err.message}\n`);
  else if (err instanceof UsageError) process.stderr.write(`alertflow: ${err.message}\n${USAGE}\n`);
  else if (err instanceof AppError) process.stderr.write(`alertflow: ${err.message}${err.details ? ` (${err.details.map((d) => `${d.path} ${d.message}`).join('; ')})` : ''}\n`);
  else {
    // SQLite errors carry the extended result code (5 busy, 517 busy snapshot …), which tells an operator more than the text.
    const code = (err as { errcode?: unknown }).errcode;
    process.stderr.write(`alertflow: ${(err as Error).message}${code === undefined ? '' : ` (SQLite code ${String(code)})`}\n`);
  }
  process.exit(1);
});

import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BODY_LIMIT } from './http/json-body.ts';
import { parseAllowList, type AllowList } from './infra/outbound.ts';

export type StoreConfig =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string };

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  readonly env: 'live' | 'test';
  readonly store: StoreConfig;
  readonly redisUrl: string | undefined;
  readonly smtpUrl: string | undefined;
  /** The From of notification emails. */
  readonly smtpFrom: string;
  /** How long a webhook attempt waits for an answer (`WEBHOOK_TIMEOUT_SECONDS`). */
  readonly webhookTimeoutSeconds: number;
  /** Non-public destinations webhook actions may still reach (`OUTBOUND_ALLOW`). */
  readonly outboundAllow: AllowList;
  readonly logLevel: string;
  readonly rateLimits: {
    readonly apiPerMinute: number;
    readonly ingestPerMinute: number;
    readonly apiKeysPerDay: number;
    readonly authFailuresPerMinute: number;
    /**
     * Failed dashboard sign-ins per 15 minutes: from a device not known to the account, per client address, per
     * (account, address) and per account (email); from a device the person signed in from before, per device.
     */
    readonly signInFailuresPerAddress: number;
    readonly signInFailuresPerAccountAddress: number;
    readonly signInFailuresPerAccount: number;
    readonly signInFailuresPerDevice: number;
    readonly authFailuresPerCredentialPerMinute: number;
  };
  /** Dashboard sessions: idle expiry (sliding) and absolute expiry from sign-in. */
  readonly sessions: {
    readonly idleMinutes: number;
    readonly absoluteHours: number;
  };
  /** The built dashboard (`web/dist`), served at `/` when it exists. */
  readonly dashboardDir: string;
  /** Bearer token of `GET /metrics` (`METRICS_TOKEN`); unset, the endpoint does not exist. */
  readonly metricsToken: string | undefined;
  /** Which proxies' X-Forwarded-For to believe for the client address (Fastify's `trustProxy`). */
  readonly trustProxy: boolean | number | string[];
  /**
   * Request body bytes read, parsed and processed at once, process-wide (`MAX_BODY_BYTES_IN_FLIGHT`); a body
   * that would pass it is answered 503 OVERLOADED unread. At least one body of the largest size.
   */
  readonly maxBodyBytesInFlight: number;
  /** How long a request body may take to arrive once it is taken on (`BODY_TIMEOUT_SECONDS`); then 408. */
  readonly bodyTimeoutSeconds: number;
  /** Commit concurrent ingest requests in one transaction (SQLite group commit). */
  readonly ingestBatchMax: number;
  /** SQLite: write ingest batches on a thread of their own (lower tail latency; needs a free core to pay off). */
  readonly ingestWriterThread: boolean;
  /** How often alerts of ended suppression windows are returned to firing. */
  readonly suppressionSweepSeconds: number;
  /** How often flapping alerts that have been stable long enough stop flapping (FLAP_SWEEP_SECONDS). */
  readonly flapSweepSeconds: number;
  /** How often worker roles look for missed heartbeats. */
  readonly heartbeatCheckSeconds: number;
  /** How often worker roles look for shifts that started (handoff notices). */
  readonly handoffCheckSeconds: number;
  /** How often a worker looks for monthly client reports to send (on the 1st of a month). */
  readonly reportCheckSeconds: number;
  /**
   * How long a "minute" of escalation delays and contact rules is, in milliseconds (ESCALATION_MINUTE_MS):
   * 60,000. For tests only, which shorten it to see a policy run in seconds.
   */
  readonly escalationMinuteMs: number;
  /** Memory of one password hash (argon2id), in KiB (PASSWORD_HASH_MEMORY_KIB): 65,536 (64 MiB). */
  readonly passwordHashMemoryKib: number;
  /**
   * How often the live stream's poller reads new events (LIVE_POLL_MS): 250 ms on SQLite; 2,000 ms on
   * PostgreSQL, where NOTIFY wakes it at once and the poll is a fallback. Tests lengthen it to prove NOTIFY.
   */
  readonly livePollMs: number | null;
  /** Providers the channels call, set by the operator (organizations configure their own Slack app and Telegram bot). */
  readonly providers: {
    readonly twilio: TwilioConfig | null;
    /** Slack's Web API base (`SLACK_API_URL`), default `https://slack.com/api`. */
    readonly slackApiUrl: string;
    /** Telegram's Bot API base (`TELEGRAM_API_URL`), default `https://api.telegram.org`. */
    readonly telegramApiUrl: string;
  };
  /** Background jobs (workflow runs, notification deliveries). */
  readonly jobs: {
    /** Run workers in this process; an instance that only answers the API can leave them to others. */
    readonly workers: boolean;
    readonly pollMs: number;
    /** How long a job belongs to the worker that took it; after that another takes it up (a crashed worker's job). */
    readonly leaseSeconds: number;
    readonly concurrency: number;
    /** Deliveries (first attempts, and retries in their own lane) one process runs at once, and workflow runs: jobs that wait more than they compute. */
    readonly deliveryConcurrency: number;
  };
}

/** The operator's Twilio account (SMS and voice channels); null when not configured: those channels are then off. */
export interface TwilioConfig {
  readonly accountSid: string;
  readonly authToken: string;
  /** E.164 numbers pages are sent from; each destination always gets its texts from the same one. */
  readonly fromNumbers: readonly string[];
  /** `https://api.twilio.com`, or a simulator in tests. */
  readonly apiUrl: string;
}

export class ConfigError extends Error {}

type Env = Readonly<Record<string, string | undefined>>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  return raw === 'true';
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use one of ${protocols.join(', ')}`);
  }
  return raw;
}

/**
 * `TRUST_PROXY`: unset or `false` (the socket address is the client), `true` (any proxy), a hop count, or a
 * comma-separated list of proxy addresses / CIDR ranges. The client address keys the failed-login limit.
 */
function trustProxy(env: Env): boolean | number | string[] {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw.split(',').map((s) => s.trim());
  for (const entry of list) {
    const [addr, bits, extra] = entry.split('/');
    const version = isIP(addr ?? '');
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (version === 6 ? 128 : 32));
    if (version === 0 || !validBits || extra !== undefined) {
      throw new ConfigError(`TRUST_PROXY must be true, false, a hop count or a comma-separated list of addresses/CIDR ranges, got "${entry}"`);
    }
  }
  return list;
}

/** `METRICS_TOKEN`: long enough that guessing it is hopeless. */
function metricsToken(env: Env): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (!/^\S{16,}$/.test(raw)) throw new ConfigError('METRICS_TOKEN must be at least 16 characters without spaces');
  return raw;
}

/** `SMTP_FROM`: `address@host` or `Name <address@host>`, on one line. */
function smtpFrom(env: Env): string {
  const raw = env.SMTP_FROM?.trim();
  if (!raw) return 'AlertFlow <alertflow@localhost>';
  if (!/^(?:[^\r\n<>]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(raw)) {
    throw new ConfigError(`SMTP_FROM must be "address@host" or "Name <address@host>", got "${raw}"`);
  }
  return raw;
}

const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * `TWILIO_ACCOUNT_SID`, `TWILIO_AUTH_TOKEN`, `TWILIO_FROM_NUMBER` (one E.164 number, or several comma-separated)
 * and `TWILIO_API_URL`: all three of the first or none (then SMS and voice are off and say so).
 */
function twilio(env: Env): TwilioConfig | null {
  const sid = env.TWILIO_ACCOUNT_SID?.trim() ?? '';
  const token = env.TWILIO_AUTH_TOKEN?.trim() ?? '';
  const from = env.TWILIO_FROM_NUMBER?.trim() ?? '';
  const apiUrl = url(env, 'TWILIO_API_URL', ['https:', 'http:']) ?? 'https://api.twilio.com';
  if (sid === '' && token === '' && from === '') return null;
  const missing = [['TWILIO_ACCOUNT_SID', sid], ['TWILIO_AUTH_TOKEN', token], ['TWILIO_FROM_NUMBER', from]].filter(([, v]) => v === '').map(([n]) => n);
  if (missing.length > 0) throw new ConfigError(`${missing.join(' and ')} must be set too: Twilio needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER`);
  if (!/^AC[0-9a-fA-F]{32}$/.test(sid)) throw new ConfigError('TWILIO_ACCOUNT_SID must be "AC" and 32 hexadecimal digits');
  if (!/^\S{16,}$/.test(token)) throw new ConfigError('TWILIO_AUTH_TOKEN must be at least 16 characters without spaces');
  const fromNumbers = from.split(',').map((n) => n.trim());
  const bad = fromNumbers.find((n) => !E164.test(n));
  if (bad !== undefined) throw new ConfigError(`TWILIO_FROM_NUMBER must be E.164 numbers (+ and 7–15 digits), comma-separated, got "${bad}"`);
  return Object.freeze({ accountSid: sid, authToken: token, fromNumbers: Object.freeze([...new Set(fromNumbers)]), apiUrl: apiUrl.replace(/\/+$/, '') });
}

function outboundAllow(env: Env): AllowList {
  try {
    return parseAllowList(env.OUTBOUND_ALLOW);
  } catch (err) {
    throw new ConfigError(`OUTBOUND_ALLOW must be a comma-separated list of CIDR ranges, addresses or host names: ${(err as Error).message}`);
  }
}

function store(env: Env): StoreConfig {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') {
    const dir = env.ALERTFLOW_DATA_DIR || './data';
    return { kind: 'sqlite', file: path.resolve(dir, 'alertflow.db') };
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
    return { kind: 'postgres', url: raw };
  }
  if (raw.startsWith('sqlite://')) {
    const file = raw.slice('sqlite://'.length);
    if (file === '') throw new ConfigError('DATABASE_URL sqlite:// needs a file path');
    return { kind: 'sqlite', file: file === ':memory:' ? file : path.resolve(file) };
  }
  throw new ConfigError('DATABASE_URL must start with sqlite://, postgres:// or postgresql://');
}

/** Reads and validates the environment once; the only place that looks at process.env. */
export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const envName = env.ALERTFLOW_ENV || (env.NODE_ENV === 'production' ? 'live' : 'test');
  if (envName !== 'live' && envName !== 'test') {
    throw new ConfigError(`ALERTFLOW_ENV must be "live" or "test", got "${envName}"`);
  }
  const baseUrl = url(env, 'BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`;
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  return Object.freeze({
    port,
    host: env.HOST || '0.0.0.0',
    baseUrl: baseUrl.replace(/\/+$/, ''),
    env: envName,
    store: store(env),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: smtpFrom(env),
    outboundAllow: outboundAllow(env),
    webhookTimeoutSeconds: int(env, 'WEBHOOK_TIMEOUT_SECONDS', 10, 1, 60),
    logLevel,
    rateLimits: Object.freeze({
      apiPerMinute: int(env, 'RATE_LIMIT_API_PER_MINUTE', 300, 1, 10_000_000),
      ingestPerMinute: int(env, 'RATE_LIMIT_INGEST_PER_MINUTE', 60, 1, 10_000_000),
      apiKeysPerDay: int(env, 'RATE_LIMIT_API_KEYS_PER_DAY', 10, 1, 10_000_000),
      authFailuresPerMinute: int(env, 'RATE_LIMIT_AUTH_FAILURES_PER_MINUTE', 100, 1, 10_000_000),
      signInFailuresPerAddress: int(env, 'RATE_LIMIT_SIGN_IN_FAILURES_PER_ADDRESS', 20, 1, 10_000_000),
      signInFailuresPerAccountAddress: int(env, 'RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT_ADDRESS', 5, 1, 10_000_000),
      signInFailuresPerAccount: int(env, 'RATE_LIMIT_SIGN_IN_FAILURES_PER_ACCOUNT', 10, 1, 10_000_000),
      signInFailuresPerDevice: int(env, 'RATE_LIMIT_SIGN_IN_FAILURES_PER_DEVICE', 10, 1, 10_000_000),
      authFailuresPerCredentialPerMinute: int(env, 'RATE_LIMIT_AUTH_FAILURES_PER_CREDENTIAL_PER_MINUTE', 10, 1, 10_000_000),
    }),
    sessions: Object.freeze({
      idleMinutes: int(env, 'SESSION_IDLE_MINUTES', 720, 1, 525_600),
      absoluteHours: int(env, 'SESSION_ABSOLUTE_HOURS', 168, 1, 8760),
    }),
    dashboardDir: path.resolve(env.DASHBOARD_DIR || fileURLToPath(new URL('../web/dist', import.meta.url))),
    trustProxy: trustProxy(env),
    metricsToken: metricsToken(env),
    maxBodyBytesInFlight: int(env, 'MAX_BODY_BYTES_IN_FLIGHT', 16 * 1024 * 1024, BODY_LIMIT, 1024 ** 4),
    bodyTimeoutSeconds: int(env, 'BODY_TIMEOUT_SECONDS', 10, 1, 300),
    ingestBatchMax: int(env, 'INGEST_BATCH_MAX', 256, 1, 10_000),
    ingestWriterThread: bool(env, 'INGEST_WRITER_THREAD', false),
    suppressionSweepSeconds: int(env, 'SUPPRESSION_SWEEP_SECONDS', 15, 1, 86_400),
    flapSweepSeconds: int(env, 'FLAP_SWEEP_SECONDS', 30, 1, 3_600),
    heartbeatCheckSeconds: int(env, 'HEARTBEAT_CHECK_SECONDS', 15, 1, 3_600),
    handoffCheckSeconds: int(env, 'HANDOFF_CHECK_SECONDS', 60, 1, 300),
    reportCheckSeconds: int(env, 'REPORT_CHECK_SECONDS', 300, 1, 3600),
    escalationMinuteMs: int(env, 'ESCALATION_MINUTE_MS', 60_000, 10, 60_000),
    passwordHashMemoryKib: int(env, 'PASSWORD_HASH_MEMORY_KIB', 65_536, 1_024, 4_194_304),
    livePollMs: env.LIVE_POLL_MS === undefined || env.LIVE_POLL_MS === '' ? null : int(env, 'LIVE_POLL_MS', 0, 10, 3_600_000),
    providers: Object.freeze({
      twilio: twilio(env),
      slackApiUrl: (url(env, 'SLACK_API_URL', ['https:', 'http:']) ?? 'https://slack.com/api').replace(/\/+$/, ''),
      telegramApiUrl: (url(env, 'TELEGRAM_API_URL', ['https:', 'http:']) ?? 'https://api.telegram.org').replace(/\/+$/, ''),
    }),
    jobs: {
      workers: bool(env, 'JOB_WORKERS', true),
      pollMs: int(env, 'JOB_POLL_MS', 250, 10, 60_000),
      leaseSeconds: int(env, 'JOB_LEASE_SECONDS', 60, 1, 86_400),
      concurrency: int(env, 'JOB_CONCURRENCY', 4, 1, 100),
      // Deliveries wait on other hosts (SMTP, webhooks), not on this process's cores: more of them run at once.
      deliveryConcurrency: int(env, 'DELIVERY_CONCURRENCY', 16, 1, 200),
    },
  });
}

import pino, { type Logger } from 'pino';

/** Structured logs; credentials never reach them (the ingest URL token is redacted where URLs are logged). */
export function createLogger(level: string, to: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.password', '*.key', '*.token'], censor: '[redacted]' },
  }, pino.destination(to === 'stdout' ? 1 : 2));
}

/** What an error is, for a log line: kind, code and message; never a stack trace or a bound SQL value. */
export function errorSummary(err: unknown): { type?: string; code?: unknown; message?: string } {
  const e = err as { name?: string; code?: unknown; message?: string };
  return { type: e?.name, code: e?.code, message: e?.message };
}

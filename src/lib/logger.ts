import pino, { type Logger } from 'pino';

/** Structured logs; credentials never reach them (the ingest URL token is redacted where URLs are logged). */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.password', '*.key', '*.token'], censor: '[redacted]' },
  });
}

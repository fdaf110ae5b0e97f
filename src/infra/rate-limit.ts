import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock } from '../lib/clock.ts';

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds (≥ 1) until the fixed window resets. */
  resetSeconds: number;
}

/**
 * A fixed-window counter (windows aligned to the clock: each minute, each UTC day). Storage and atomic
 * increments come from rate-limiter-flexible: in memory for one instance, in Redis to share the budget.
 */
export interface RateLimiter {
  consume(key: string): Promise<LimitResult>;
  /**
   * Gives back one point, for work that was counted but did not happen; `countedAt` (the clock's time of the
   * consume) gives it back to the window it was taken from, when that one may have ended since.
   */
  refund(key: string, countedAt?: number): Promise<void>;
  /** Current state without counting: sign-in refuses a spent budget before checking a password, since answering a right password over the limit would tell a guesser which one is right. */
  peek(key: string): Promise<LimitResult>;
}

export interface LimiterFactory {
  create(name: string, limit: number, windowSeconds: number): RateLimiter;
}

export function limiterFactory(clock: Clock, redis: Redis | undefined): LimiterFactory {
  return {
    create(name, limit, windowSeconds) {
      const windowMs = windowSeconds * 1000;
      const options = { points: limit, duration: windowSeconds + 5, keyPrefix: `af:rl:${name}` };
      // While Redis is unreachable each instance counts in memory (the budget is then per instance)
      // rather than failing requests: an alert refused because a rate-limit store is down would be lost.
      const store: RateLimiterAbstract = redis
        ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) })
        : new RateLimiterMemory(options);
      const windowOf = (key: string, now = clock.now()) => {
        const index = Math.floor(now / windowMs);
        return {
          storeKey: `${key}:${index}`,
          resetSeconds: Math.max(1, Math.ceil(((index + 1) * windowMs - now) / 1000)),
        };
      };
      const result = (consumed: number, resetSeconds: number): LimitResult => ({
        allowed: consumed <= limit,
        limit,
        remaining: Math.max(0, limit - consumed),
        resetSeconds,
      });
      return {
        async consume(key) {
          const w = windowOf(key);
          try {
            const res = await store.consume(w.storeKey);
            return result(res.consumedPoints, w.resetSeconds);
          } catch (err) {
            if (err instanceof RateLimiterRes) return result(err.consumedPoints, w.resetSeconds);
            throw err;
          }
        },
        async refund(key, countedAt) {
          await store.reward(windowOf(key, countedAt).storeKey, 1);
        },
        async peek(key) {
          const w = windowOf(key);
          const res = await store.get(w.storeKey);
          return result(res?.consumedPoints ?? 0, w.resetSeconds);
        },
      };
    },
  };
}

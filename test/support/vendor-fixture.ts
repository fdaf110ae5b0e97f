import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for another on-call tool's REST API, on 127.0.0.1: each vendor's file under test/support/fixtures/
 * answers like the vendor's published API document, and this records what was asked and can throttle a path.
 */

export interface FixtureRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
}

export interface FixtureAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type FixtureHandler = (req: FixtureRequest, base: string) => FixtureAnswer;

export interface Fixture {
  url: string;
  requests: FixtureRequest[];
  /** The next `times` GETs of `path` are answered with `answer` (a 429) before the real answer. */
  throttle(path: string, times: number, answer: FixtureAnswer): void;
  close(): Promise<void>;
}

export async function startFixture(handler: FixtureHandler): Promise<Fixture> {
  const requests: FixtureRequest[] = [];
  const throttled = new Map<string, { times: number; answer: FixtureAnswer }>();
  let base = '';
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const r: FixtureRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, authorization: req.headers.authorization };
    requests.push(r);
    const t = throttled.get(r.path);
    let answer: FixtureAnswer;
    if (t && t.times > 0) {
      t.times -= 1;
      answer = t.answer;
    } else {
      answer = handler(r, base);
    }
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    throttle: (path, times, answer) => throttled.set(path, { times, answer }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A page of `items` from `offset`, at most `size` long, and whether more follow. */
export const pageOf = <T>(items: readonly T[], offset: number, size: number): { page: T[]; more: boolean } =>
  ({ page: items.slice(offset, offset + size), more: offset + size < items.length });

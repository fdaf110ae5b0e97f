import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Headers of every dashboard response. Scripts and styles only from our own files (no inline script, so
 * injected markup cannot run), no framing, no plugins, no foreign form targets.
 */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/** Vite puts content-hashed files under `assets/`: a changed file has a new name, so they can be kept for a year. */
const HASHED_ASSETS = `${path.sep}assets${path.sep}`;

const NOT_BUILT = 'The AlertFlow dashboard is not built. Run `npm ci` (its prepare script builds web/) or `npm run build --prefix web`, then restart. The REST API is at /api/v1.\n';

const pathOf = (req: FastifyRequest): string => req.url.split('?')[0] as string;

/** Paths the dashboard never answers: the API (with its JSON 404s), the ingest route and the probes. */
const isServerPath = (p: string): boolean => p === '/api' || p.startsWith('/api/') || p === '/healthz' || p === '/readyz';

/**
 * Serves the built dashboard (`dir`, i.e. web/dist) at `/`. Returns the not-found fallback: client-side
 * routes (`/alerts/<id>` opened from an email) get index.html when a browser asks for a page; everything
 * else is left to the JSON 404.
 */
export async function registerDashboard(app: FastifyInstance, dir: string): Promise<(req: FastifyRequest, reply: FastifyReply) => boolean> {
  app.addHook('onSend', async (req, reply) => {
    if (!isServerPath(pathOf(req))) reply.headers(SECURITY_HEADERS);
  });
  const built = existsSync(path.join(dir, 'index.html'));
  if (built) {
    await app.register(fastifyStatic, {
      root: dir,
      index: ['index.html'],
      cacheControl: false,
      setHeaders: (reply, file) => {
        reply.header('cache-control', file.includes(HASHED_ASSETS) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  } else {
    app.get('/', { schema: { hide: true } }, (_req, reply) => reply.type('text/plain; charset=utf-8').send(NOT_BUILT));
  }
  return (req, reply) => {
    const p = pathOf(req);
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isServerPath(p) || !req.headers.accept?.includes('text/html')) return false;
    if (built) void reply.header('cache-control', 'no-cache').sendFile('index.html');
    else void reply.type('text/plain; charset=utf-8').send(NOT_BUILT);
    return true;
  };
}

/**
 * The built dashboard's stylesheets (from its index.html: Vite names them by content), so that pages the server
 * renders itself (a page's acknowledge link) look like the dashboard. Empty when the dashboard is not built.
 */
export function dashboardStylesheets(dir: string): string[] {
  const index = path.join(dir, 'index.html');
  if (!existsSync(index)) return [];
  return [...readFileSync(index, 'utf8').matchAll(/<link rel="stylesheet"[^>]*href="(\/assets\/[\w.-]+\.css)"/g)].map((m) => m[1] as string);
}

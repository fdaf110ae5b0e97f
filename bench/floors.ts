/**
 * The two HTTP floors of `npm run bench:vs-alertmanager`, each a server that does only what any ingest must:
 *   node bench/floors.ts http     — bare `node:http`: reads the body, parses its JSON, answers the ingest response
 *   node bench/floors.ts fastify  — a bare Fastify route with the ingest route's schema (token parameter, ingest
 *                                   response serializer) and AlertFlow's JSON body parser
 * Both answer every alert of the body as created (the standard payload is one alert; the Alertmanager webhook body
 * carries `alerts`) and store nothing. Each listens on an ephemeral loopback port and prints it as one line.
 * AlertFlow's rate of a run divided by a floor's says how much of the time per request is ours.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { parseJsonBody } from '../src/http/json-body.ts';
import { validatorCompiler } from '../src/http/validation.ts';
import { IngestResponse } from '../src/modules/ingest/ingest-schemas.ts';

const HOST = '127.0.0.1';

/** What ingest would answer for the body, as if every alert in it were new. */
function outcomes(body: unknown): { data: { alerts: Array<{ alertId: string; fingerprint: string; status: 'firing'; action: 'created' }> } } {
  const b = body as { alerts?: Array<{ fingerprint?: string }>; fingerprint?: string } | null;
  const alerts = Array.isArray(b?.alerts) ? b.alerts : [b ?? {}];
  return { data: { alerts: alerts.map((a, i) => ({ alertId: `alt_floor${i}`, fingerprint: String(a.fingerprint ?? i), status: 'firing', action: 'created' })) } };
}

async function bareHttp(): Promise<number> {
  const read = (req: IncomingMessage) => new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).once('end', () => resolve(Buffer.concat(chunks).toString('utf8'))).once('error', reject);
  });
  const server = createServer((req, res) => {
    read(req).then((text) => {
      const body = JSON.stringify(outcomes(JSON.parse(text)));
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
    }, () => res.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  return (server.address() as { port: number }).port;
}

async function bareFastify(): Promise<number> {
  const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.post('/api/inbound/webhook/:token', {
    schema: { params: Type.Object({ token: Type.String({ maxLength: 200 }) }), response: { 200: IngestResponse } },
  }, async (req) => outcomes(req.body));
  await app.listen({ port: 0, host: HOST });
  return (app.server.address() as { port: number }).port;
}

const kind = process.argv[2];
if (kind !== 'http' && kind !== 'fastify') {
  process.stderr.write('usage: node bench/floors.ts http|fastify\n');
  process.exit(2);
}
process.stdout.write(`${kind === 'http' ? await bareHttp() : await bareFastify()}\n`);

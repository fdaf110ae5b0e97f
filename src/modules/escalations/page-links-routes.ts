import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { escapeHtml } from '../notifications/notifications-fns.ts';
import type { LinkView, PageLinksService } from './page-links-service.ts';

/** A wildcard: the token (claims and signature) is longer than a route parameter may be. */
export const LINK_ROUTE = '/links/*';


const VERB = { acknowledge: 'Acknowledge', resolve: 'Resolve' } as const;
const DONE = { acknowledge: 'acknowledged', resolve: 'resolved' } as const;

function html(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)} · AlertFlow</title>
</head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>\n`;
}

const STATUS: Record<LinkView['state'], number> = { confirm: 200, done: 200, already: 200, used: 409, expired: 410, invalid: 404, gone: 404 };

/**
 * The page for a link's state: every value escaped, no script and no inline style, so it keeps to the
 * dashboard's Content-Security-Policy (sent with it); the one form posts back to this same URL.
 */
export function linkPage(v: LinkView): string {
  const p = (s: string) => `<p>${escapeHtml(s)}</p>`;
  switch (v.state) {
    case 'invalid': return html('Link not valid', p('This link is not valid. Open the incident in AlertFlow instead.'));
    case 'expired': return html('Link expired', p('This link has expired (links work for 24 hours). Open the incident in AlertFlow instead.'));
    case 'used': return html('Link already used', p('This link has already been used; each link works once.'));
    case 'gone': return html('Incident not found', p('The incident of this link no longer exists.'));
    case 'confirm': {
      const name = `#${v.incident.number} ${v.incident.title}`;
      return html(`${VERB[v.action]} incident ${name}?`, `${p(`The incident is ${v.incident.status}.`)}<form method="post"><button type="submit">${VERB[v.action]}</button></form>`);
    }
    case 'done': return html(`Incident #${v.incident.number} ${DONE[v.action]}`, p(`${v.incident.title}: ${DONE[v.action]}. Its escalation has stopped.`));
    case 'already': return html(`Incident #${v.incident.number} is ${v.incident.status}`, p(`${v.incident.title} was already ${v.incident.status}; nothing changed.`));
  }
}

/**
 * `GET {base_url}/links/{token}` shows what the link does; `POST` (the page's button) does it. Outside
 * /api/v1 and the OpenAPI document: the token is the credential, and the answer is a page, not JSON.
 */
export async function pageLinkRoutes(app: Api, links: PageLinksService): Promise<void> {
  await app.register(async (scope) => {
    // The form posts application/x-www-form-urlencoded with no field we read.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 }, (_req, _body, done) => done(null, undefined));
    const params = Type.Object({ '*': Type.String({ maxLength: 1000 }) });
    const send = (reply: FastifyReply, v: LinkView) =>
      reply.code(STATUS[v.state]).header('Content-Type', 'text/html; charset=utf-8').header('Cache-Control', 'no-store')
        .send(linkPage(v));
    scope.get(LINK_ROUTE, { schema: { hide: true, params } }, async (req, reply) => send(reply, await links.view((req.params as { '*': string })['*'])));
    scope.post(LINK_ROUTE, { schema: { hide: true, params } }, async (req, reply) => send(reply, await links.use((req.params as { '*': string })['*'], req.ip)));
  });
}

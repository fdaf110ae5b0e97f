import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { escapeHtml } from '../notifications/notifications-fns.ts';
import type { LinkView, PageLinksService } from './page-links-service.ts';

/** A wildcard: the token (claims and signature) is longer than a route parameter may be. */
export const LINK_ROUTE = '/links/*';


const VERB = { acknowledge: 'Acknowledge', resolve: 'Resolve' } as const;
const DONE = { acknowledge: 'acknowledged', resolve: 'resolved' } as const;

/** How the page looks: the dashboard's own stylesheets (dashboardStylesheets), as its sign-in card. */
export interface LinkPageLook {
  stylesheets: readonly string[];
}

function html(look: LinkPageLook, title: string, body: string): string {
  const styles = look.stylesheets.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer"><link rel="icon" href="/favicon.svg" type="image/svg+xml">${styles}
<title>${escapeHtml(title)} · AlertFlow</title>
</head><body><main class="centered"><div class="card"><p class="brand">AlertFlow</p><h1>${escapeHtml(title)}</h1>${body}</div></main></body></html>\n`;
}

const STATUS: Record<LinkView['state'], number> = { confirm: 200, done: 200, already: 200, used: 409, expired: 410, invalid: 404, gone: 404 };

/** What the person can do next: the page's resolve link after an acknowledgement, and the incident in the dashboard. */
function next(v: Extract<LinkView, { incident: unknown }>): string {
  const resolve = v.resolveToken === null ? ''
    : `<form method="post" action="/links/${escapeHtml(v.resolveToken)}"><button type="submit">Resolve</button></form>`;
  return `<div class="actions start">${resolve}<a class="button secondary" href="/incidents/${escapeHtml(encodeURIComponent(v.incident.id))}">Open incident #${v.incident.number}</a></div>`;
}

/**
 * The page for a link's state: every value escaped, no script and no inline style, so it keeps to the
 * dashboard's Content-Security-Policy (sent with it); its forms post back to this server.
 */
export function linkPage(v: LinkView, look: LinkPageLook): string {
  const p = (s: string) => `<p>${escapeHtml(s)}</p>`;
  switch (v.state) {
    case 'invalid': return html(look, 'Link not valid', p('This link is not valid. Open the incident in AlertFlow instead.'));
    case 'expired': return html(look, 'Link expired', p('This link has expired (links work for 24 hours). Open the incident in AlertFlow instead.'));
    case 'used': return html(look, 'Link already used', p('This link has already been used; each link works once.'));
    case 'gone': return html(look, 'Incident not found', p('The incident of this link no longer exists.'));
    case 'confirm': {
      const name = `#${v.incident.number} ${v.incident.title}`;
      return html(look, `${VERB[v.action]} incident ${name}?`, `${p(`The incident is ${v.incident.status}.`)}<form method="post"><button type="submit">${VERB[v.action]}</button></form>`);
    }
    case 'done': return html(look, `Incident #${v.incident.number} ${DONE[v.action]}`, p(`${v.incident.title}: ${DONE[v.action]}. Its escalation has stopped.`) + next(v));
    case 'already': return html(look, `Incident #${v.incident.number} is ${v.incident.status}`, p(`${v.incident.title} was already ${v.incident.status}; nothing changed.`) + next(v));
  }
}

/**
 * `GET {base_url}/links/{token}` shows what the link does; `POST` (the page's button) does it. Outside
 * /api/v1 and the OpenAPI document: the token is the credential, and the answer is a page, not JSON.
 */
export async function pageLinkRoutes(app: Api, links: PageLinksService, look: LinkPageLook): Promise<void> {
  await app.register(async (scope) => {
    // The form posts application/x-www-form-urlencoded with no field we read.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 }, (_req, _body, done) => done(null, undefined));
    const params = Type.Object({ '*': Type.String({ maxLength: 1000 }) });
    const send = (reply: FastifyReply, v: LinkView) =>
      reply.code(STATUS[v.state]).header('Content-Type', 'text/html; charset=utf-8').header('Cache-Control', 'no-store')
        .send(linkPage(v, look));
    scope.get(LINK_ROUTE, { schema: { hide: true, params } }, async (req, reply) => send(reply, await links.view((req.params as { '*': string })['*'])));
    scope.post(LINK_ROUTE, { schema: { hide: true, params } }, async (req, reply) => send(reply, await links.use((req.params as { '*': string })['*'], req.ip)));
  });
}

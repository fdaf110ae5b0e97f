import { escapeHtml } from '../notifications/notifications-fns.ts';

/** Who a set-password link comes from, where to, and until when (the organization's clock and zone). */
export interface LinkMail {
  url: string;
  expiresAt: number;
  role: string;
  orgName: string;
  zone: string;
  /** The member who made the link; null when an API key did. */
  inviter: string | null;
}

/**
 * The set-password email: it names the organization and who asked, and gives the expiry on the organization's
 * clock with its zone (the new member has no zone of their own yet), not as a UTC timestamp.
 */
export function linkMail(m: LinkMail): { subject: string; text: string; html: string } {
  const until = `${new Intl.DateTimeFormat('en-GB', { timeZone: m.zone, dateStyle: 'full', timeStyle: 'short' }).format(m.expiresAt)} (${m.zone})`;
  const who = m.inviter ?? 'An administrator';
  const lead = `${who} invited you to ${m.orgName} on AlertFlow (role: ${m.role}). Set your password with this link; it works once, until ${until}.`;
  return {
    subject: `Join ${m.orgName} on AlertFlow: set your password`,
    text: `${lead}\n\n${m.url}\n`,
    html: `<p>${escapeHtml(lead)}</p><p><a href="${escapeHtml(m.url)}">Set your password</a></p>`,
  };
}

import { useState } from 'react';
import { useFeedStatus, useIssueFeed, useRevokeFeed, type FeedOf } from '../api/calendar-feeds';
import { ConfirmDialog } from './confirm-dialog';
import { CopyButton } from './copy-button';
import { ErrorDisplay } from './error-display';
import { formatTime } from './format';
import { Loading } from './page';

/**
 * A secret calendar feed URL: made here, shown once (only its hash is kept), replaced or revoked with a
 * confirmation. `canChange` false shows only whether it exists.
 */
export function CalendarFeed({ of, canChange, what }: { of: FeedOf; canChange: boolean; what: string }) {
  const status = useFeedStatus(of);
  const issue = useIssueFeed(of);
  const revoke = useRevokeFeed(of);
  const [confirm, setConfirm] = useState<'rotate' | 'revoke' | null>(null);
  if (status.isPending) return <Loading rows={1} />;
  if (status.error) return <ErrorDisplay error={status.error} />;
  const s = status.data.data;
  const shown = issue.data?.data;
  const make = () => issue.mutate(undefined, { onSettled: () => setConfirm(null) });
  return (
    <div className="calendar-feed">
      <p>Subscribe to {what} in Google Calendar, Outlook or Apple Calendar with a secret address: it needs no password, so keep it to yourself.</p>
      {shown ? (
        <div role="status">
          <p><strong>Your feed address, shown only this once:</strong></p>
          <div className="copy-row">
            <code className="break" data-testid="feed-url">{shown.url}</code>
            <CopyButton text={shown.url} label="Copy address" />
          </div>
          <p><a href={shown.webcalUrl}>Open in your calendar app</a></p>
        </div>
      ) : s.active ? (
        <p data-testid="feed-state">A feed address exists since {formatTime(s.createdAt)}; {s.lastUsedAt ? `a calendar last fetched it ${formatTime(s.lastUsedAt)}` : 'no calendar has fetched it yet'}.</p>
      ) : (
        <p data-testid="feed-state" className="muted">No feed address yet.</p>
      )}
      {canChange && (
        <div className="actions start">
          {s.active || shown
            ? <>
                <button type="button" className="secondary" onClick={() => setConfirm('rotate')}>Make a new address</button>
                <button type="button" className="danger" onClick={() => setConfirm('revoke')}>Revoke</button>
              </>
            : <button type="button" disabled={issue.isPending} onClick={make}>Make a feed address</button>}
        </div>
      )}
      <ErrorDisplay error={issue.error ?? revoke.error} />
      <ConfirmDialog open={confirm === 'rotate'} title="Make a new feed address?" confirmLabel="Make a new address" busy={issue.isPending}
        onCancel={() => setConfirm(null)} onConfirm={make}>
        <p>The current address stops working at once: calendars subscribed to it must be given the new one.</p>
      </ConfirmDialog>
      <ConfirmDialog open={confirm === 'revoke'} title="Revoke the feed address?" confirmLabel="Revoke" danger busy={revoke.isPending}
        onCancel={() => setConfirm(null)} onConfirm={() => revoke.mutate(undefined, { onSuccess: () => issue.reset(), onSettled: () => setConfirm(null) })}>
        <p>Calendars subscribed to it stop getting your shifts.</p>
      </ConfirmDialog>
    </div>
  );
}

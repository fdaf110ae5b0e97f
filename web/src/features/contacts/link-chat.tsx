import { useEffect, useState } from 'react';
import type { ChannelInfo, LinkBody } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { useRequestLink } from './contacts-api';

/**
 * A chat whose account is linked from the chat itself (Telegram): a one-time code and where to send it. The method
 * appears once the organization's bot receives it; meanwhile the list is read again (`onWaiting`).
 */
export function LinkChat({ channel, onWaiting }: {
  /** A channel the catalogue marks `linked` (so one of the link endpoint's types). */
  channel: ChannelInfo;
  onWaiting: (waiting: boolean) => void;
}) {
  const link = useRequestLink();
  const pending = link.data?.data;
  const [now, setNow] = useState(Date.now());
  const waiting = pending !== undefined && Date.parse(pending.expiresAt) > now;
  useEffect(() => {
    onWaiting(waiting);
    if (!waiting) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 5000);
    return () => clearInterval(timer);
  }, [waiting, onWaiting]);
  return (
    <div className="link-chat">
      <button type="button" className="secondary" disabled={!channel.available || link.isPending} onClick={() => link.mutate(channel.type as LinkBody['type'])}>
        Link {channel.label}
      </button>
      {!channel.available && channel.unavailable && <span className="hint">{channel.unavailable}</span>}
      {waiting && <p role="status" className="hint">{pending.instructions} (the code works once, until {formatTime(pending.expiresAt)}).</p>}
      <ErrorDisplay error={link.error} />
    </div>
  );
}

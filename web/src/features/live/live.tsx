import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { setTitlePrefix } from '../../components/page';
import { ALERT_EVENTS, announces, INCIDENT_EVENTS, parseData, staleKeys, throttle, titlePrefix, type LiveData } from './live-fns';

const STREAM_URL = '/api/v1/events';
/** After the server refused the stream (signed out, too many open), a new one is tried this much later. */
const REOPEN_MS = 10_000;
const NOTIFY_KEY = 'alertflow.live.notifyCritical';

type LiveState = 'connecting' | 'live' | 'reconnecting';

function announce(data: LiveData): void {
  try {
    const audio = new AudioContext();
    const beep = audio.createOscillator();
    beep.frequency.value = 880;
    beep.connect(audio.destination);
    beep.start();
    beep.stop(audio.currentTime + 0.2);
    beep.onended = () => void audio.close();
  } catch {
    // No sound available: the desktop notification (if allowed) still says it.
  }
  // The title is the sender's text: a notification body is plain text, never markup.
  if ('Notification' in window && Notification.permission === 'granted') new Notification('Critical alert', { body: data.title, tag: data.id });
}

/**
 * The app's one event stream while signed in: an event makes the matching cached queries stale (at most one
 * refetch per 300 ms), a reconnect or a `reset` refetches alerts and incidents, since events may have been missed.
 */
function useLiveStream(notify: boolean, onRefused: () => void): LiveState {
  const qc = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');
  const notifyRef = useRef(notify);
  notifyRef.current = notify;
  const refusedRef = useRef(onRefused);
  refusedRef.current = onRefused;

  useEffect(() => {
    const refetch = throttle(300, (keys) => {
      for (const queryKey of keys) void qc.invalidateQueries({ queryKey });
    });
    const everything = [['alerts'], ['alert'], ['incidents']];
    let source: EventSource | null = null;
    let reopen: ReturnType<typeof setTimeout> | undefined;
    let dropped = false;
    const open = () => {
      source = new EventSource(STREAM_URL, { withCredentials: true });
      source.onopen = () => {
        setState('live');
        if (dropped) refetch.add(everything);
        dropped = false;
      };
      source.onerror = () => {
        dropped = true;
        setState('reconnecting');
        // The browser retries by itself unless the server refused the stream outright (then the session may have ended:
        // the shell checks, and leaves for the sign-in page if so, which closes this stream for good).
        if (source?.readyState === EventSource.CLOSED) {
          refusedRef.current();
          reopen = setTimeout(open, REOPEN_MS);
        }
      };
      for (const type of [...ALERT_EVENTS, ...INCIDENT_EVENTS]) {
        source.addEventListener(type, (e) => {
          const data = parseData((e as MessageEvent<string>).data);
          refetch.add(staleKeys(type, data));
          if (notifyRef.current && announces(type, data)) announce(data);
        });
      }
      source.addEventListener('reset', () => refetch.add(everything));
    };
    open();
    return () => {
      clearTimeout(reopen);
      refetch.cancel();
      source?.close();
    };
  }, [qc]);
  return state;
}

/** The tab title counts the firing alerts; the query is under `alerts`, so live events refresh it. */
function useFiringTitle(): void {
  const firing = useQuery({
    queryKey: ['alerts', 'firing-count'],
    queryFn: ({ signal }) => unwrap(api.GET('/alerts', { params: { query: { status: 'firing', limit: 1 } }, signal })),
    select: (r) => r.meta.total,
  });
  useEffect(() => {
    setTitlePrefix(titlePrefix(firing.data));
    return () => setTitlePrefix('');
  }, [firing.data]);
}

/**
 * Live updates for the signed-in shell: the stream, the title count, a status line and the opt-in alerting.
 * `onRefused`: the server refused the stream; the shell re-checks the session.
 */
export function LiveUpdates({ onRefused }: { onRefused: () => void }) {
  const [notify, setNotify] = useState(() => localStorage.getItem(NOTIFY_KEY) === '1');
  const state = useLiveStream(notify, onRefused);
  useFiringTitle();

  const toggle = async (on: boolean) => {
    setNotify(on);
    localStorage.setItem(NOTIFY_KEY, on ? '1' : '0');
    // Permission is asked only here, when someone turns this on.
    if (on && 'Notification' in window && Notification.permission === 'default') await Notification.requestPermission();
  };

  return (
    <div className="live">
      <span role="status" className={`live-state live-${state}`}>
        <span aria-hidden="true">●</span> {state === 'live' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
      </span>
      <label className="live-notify">
        <input type="checkbox" checked={notify} onChange={(e) => void toggle(e.target.checked)} />
        Alert me<span className="wide-only"> on new critical alerts</span>
      </label>
    </div>
  );
}

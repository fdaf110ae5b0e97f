import { eventually } from './eventually.ts';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: any;
}

export interface SseStream {
  status: number;
  contentType: string;
  /** Every event received so far, in order. */
  events: SseEvent[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Waits for the first event (counting from `from`) that `match` accepts. */
  next(match: (e: SseEvent) => boolean, timeoutMs?: number, from?: number): Promise<SseEvent>;
  close(): void;
}

/** Opens `GET url` and parses its server-sent events as they arrive (a real HTTP connection, not inject). */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const r = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const events: SseEvent[] = [];
  let ended = false;
  const done = (async () => {
    if (!r.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of r.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const fields = new Map<string, string>();
          for (const line of block.split('\n')) {
            if (line.startsWith(':') || line === '') continue;
            const i = line.indexOf(':');
            fields.set(line.slice(0, i), line.slice(i + 1).trimStart());
          }
          if (!fields.has('data')) continue;
          events.push({ id: fields.get('id'), event: fields.get('event') ?? 'message', data: JSON.parse(fields.get('data') as string) });
        }
      }
    } catch {
      // Aborted by close().
    }
  })().finally(() => { ended = true; });
  return {
    status: r.status,
    contentType: r.headers.get('content-type') ?? '',
    events,
    ended: done,
    isEnded: () => ended,
    next: (match, timeoutMs = 10_000, from = 0) =>
      eventually('a matching server-sent event', () => events.slice(from).find(match), timeoutMs, 20),
    close: () => abort.abort(),
  };
}

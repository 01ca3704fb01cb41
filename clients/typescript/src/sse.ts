export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

export interface SseFields {
  /** The `retry:` the server asked for, when a line set it. */
  onRetry?: (ms: number) => void;
}

/**
 * Parses a `text/event-stream` body into messages, following the WHATWG parsing rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * any line ending, comments ignored, multi-line `data`, a message dispatched on a blank line and
 * a trailing message without its blank line dropped (the connection was cut inside it).
 */
export async function* parseSse(body: ReadableStream<Uint8Array>, fields: SseFields = {}): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | null = null;
  try {
    for (let done = false; !done;) {
      const chunk = await reader.read();
      done = chunk.done;
      buffer += done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      const lineEnd = /\r\n|\r|\n/g;
      let start = 0;
      for (let end = lineEnd.exec(buffer); end !== null; end = lineEnd.exec(buffer)) {
        // A lone \r at the end of what came so far may be the first half of \r\n: wait for the next chunk.
        if (!done && end[0] === '\r' && end.index === buffer.length - 1) break;
        const line = buffer.slice(start, end.index);
        start = end.index + end[0].length;
        if (line === '') {
          if (data.length > 0) yield { id, event: event || 'message', data: data.join('\n') };
          data = [];
          event = '';
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon === -1 ? line : line.slice(0, colon);
        const raw = colon === -1 ? '' : line.slice(colon + 1);
        const text = raw.startsWith(' ') ? raw.slice(1) : raw;
        if (name === 'data') data.push(text);
        else if (name === 'event') event = text;
        else if (name === 'id' && !text.includes('\0')) id = text;
        else if (name === 'retry' && /^\d+$/.test(text)) fields.onRetry?.(Number(text));
      }
      buffer = buffer.slice(start);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** An SSE stream held open by the test until it closes it. */
export interface OpenStream {
  status: number;
  headers: Headers;
  /** The body when the answer was not a stream (a JSON error). */
  text: string;
  /** The stream's next bytes (`done` once the server ended it). */
  next(): Promise<{ done: boolean; value?: Uint8Array }>;
  close(): Promise<void>;
}

/** Opens `path` as an event stream and waits for the first bytes (or the whole non-stream answer). */
export async function openStream(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}${path}`, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  if (response.status !== 200 || !response.body) {
    return {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      next: async () => ({ done: true }),
      close: async () => undefined,
    };
  }
  const reader = response.body.getReader();
  await reader.read();
  return {
    status: response.status,
    headers: response.headers,
    text: '',
    next: () => reader.read(),
    close: async () => {
      controller.abort();
      await reader.cancel().catch(() => undefined);
    },
  };
}

/** Polls `check` until it holds (the server notices a closed stream a moment later). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

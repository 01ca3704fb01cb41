import OpenAI from 'openai';
import { expectValid } from './open-responses-schemas';

/** The official SDK pointed at a Runledger: only baseURL (and the key) changed. */
export const client = (baseUrl: string, apiKey = 'unused-on-loopback') => new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey, maxRetries: 0 });

/** Every event of a stream, each checked against the Open Responses schemas, sequence numbers in order. */
export async function collect(stream: AsyncIterable<unknown>, stopAfter = Infinity): Promise<any[]> {
  const events: any[] = [];
  for await (const event of stream) {
    expectValid('event', event);
    const e = event as { type: string; response?: unknown };
    if (e.response) expectValid('response', e.response);
    events.push(event);
    if (events.length >= stopAfter) break;
  }
  return events;
}

/** A response object, checked, and returned. */
export function valid<T>(response: T): T {
  expectValid('response', response);
  return response;
}

/** Polls a background response until it has ended. */
export async function untilEnded(openai: OpenAI, id: string, timeoutMs = 10000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = valid(await openai.responses.retrieve(id));
    if (!['queued', 'in_progress'].includes(response.status!)) return response;
    if (Date.now() > deadline) throw new Error(`response ${id} is still ${response.status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

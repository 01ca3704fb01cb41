import { api, createConversation, JsonResponse, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { expectError } from '../support/execution-helpers';

/** `GET /v1/executions` — filters, newest first, opaque cursor pages. */
describe('execution search', () => {
  const app = useApp();
  let first: string;
  let second: string;
  const all: { id: string; conversationId: string; status: string }[] = [];
  let middle: string;

  beforeAll(async () => {
    first = await createConversation(app.baseUrl);
    second = await createConversation(app.baseUrl);
    // 150 completed in the first conversation, 100 failed in the second, one waiting on approval.
    for (let i = 0; i < 250; i++) {
      const conversationId = i < 150 ? first : second;
      const config = i < 150 ? {} : { script: [{ type: 'fail', message: 'no' }] };
      const res = await startExecution(app.baseUrl, { conversationId, config });
      all.push({ id: res.body.id, conversationId, status: i < 150 ? 'completed' : 'failed' });
      if (i === 124) middle = res.body.createdAt;
    }
    const waiting = await startExecution(app.baseUrl, { conversationId: first, config: { script: [{ type: 'action', kind: 'approval', prompt: 'ok?' }] } });
    all.push({ id: waiting.body.id, conversationId: first, status: 'requires_action' });
    for (const { id, status } of all) await waitForExecution(app.baseUrl, id, (e) => e.status === status);
  }, 120_000);

  /** Follows nextCursor to the end. */
  async function everyPage(query: string): Promise<any[]> {
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const res: JsonResponse = await api(app.baseUrl, 'GET', `/v1/executions?${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['executions', 'nextCursor']);
      seen.push(...res.body.executions);
      cursor = res.body.nextCursor;
    } while (cursor);
    return seen;
  }

  it('pages through everything newest first, each item the full Execution resource, the last page with nextCursor null', async () => {
    const items = await everyPage('limit=40');
    expect(items.map((e) => e.id)).toEqual(all.map((e) => e.id).reverse());
    const one = await api(app.baseUrl, 'GET', `/v1/executions/${items[0].id}`);
    expect(items[0]).toEqual(one.body);
  });

  it('defaults to 20 per page', async () => {
    const res = await api(app.baseUrl, 'GET', '/v1/executions');
    expect(res.body.executions).toHaveLength(20);
    expect(typeof res.body.nextCursor).toBe('string');
  });

  it('combines filters with AND', async () => {
    const inFirst = await everyPage(`conversationId=${first}&limit=100`);
    expect(inFirst).toHaveLength(151);
    const failed = await everyPage('status=failed&limit=100');
    expect(failed.map((e) => e.id).sort()).toEqual(
      all
        .filter((e) => e.status === 'failed')
        .map((e) => e.id)
        .sort(),
    );
    expect(await everyPage(`conversationId=${first}&status=failed`)).toEqual([]);
    const waiting = await everyPage('status=requires_action&provider=scripted');
    expect(waiting.map((e) => e.id)).toEqual([all.at(-1)!.id]);
    expect(await everyPage('provider=nobody')).toEqual([]);
  });

  it('createdAfter and createdBefore are exclusive bounds', async () => {
    const after = await everyPage(`createdAfter=${encodeURIComponent(middle)}&limit=100`);
    expect(after.every((e) => e.createdAt > middle)).toBe(true);
    const before = await everyPage(`createdBefore=${encodeURIComponent(middle)}&limit=100`);
    expect(before.every((e) => e.createdAt < middle)).toBe(true);
    const atMiddle = all.length - after.length - before.length;
    expect(atMiddle).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['limit=0'],
    ['limit=101'],
    ['limit=x'],
    ['status=done'],
    ['status=completed&status=failed'],
    ['createdAfter=yesterday'],
    ['createdBefore=2026-13-45T99:00:00Z'],
    ['cursor=not-a-cursor'],
    [`cursor=${Buffer.from('{"v":1,"before":"x"}').toString('base64url')}`],
    ['conversationId='],
    ['sort=asc'],
  ])('rejects %s with 400 VALIDATION_ERROR', async (query) => {
    expectError(await api(app.baseUrl, 'GET', `/v1/executions?${query}`), 400, 'VALIDATION_ERROR');
  });
});

/** A page of `GET /v1/executions` is bounded by MAX_PAGE_BYTES as well as by `limit`. */
describe('execution search pages at MAX_PAGE_BYTES', () => {
  const app = useApp({ env: { MAX_PAGE_BYTES: '16384' } });

  it('ends a page before the execution that would take it past the bound (keeping at least one), and its cursor goes on from there', async () => {
    const conversationId = await createConversation(app.baseUrl);
    const ids: string[] = [];
    // Each state holds ~12 kB: the input and its echo as the output text.
    for (let i = 0; i < 6; i++) ids.push((await startExecution(app.baseUrl, { conversationId, input: { text: `${i}${'x'.repeat(6000)}` } })).body.id);
    for (const id of ids) await waitForExecution(app.baseUrl, id, (e) => e.status === 'completed');
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const res: JsonResponse = await api(app.baseUrl, 'GET', `/v1/executions?conversationId=${conversationId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      pages.push(res.body.executions.map((e: { id: string }) => e.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(pages.map((page) => page.length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(pages.flat()).toEqual([...ids].reverse());
  });
});

import fc from 'fast-check';
import type { RecordedExecutionEvent } from '../executions/domain/execution-events';
import { ResponseFold } from './domain/response-fold';

const at = (sequence: number) => `2026-09-02T10:00:${String(sequence).padStart(2, '0')}.000Z`;
const log = (events: Omit<RecordedExecutionEvent, 'sequence' | 'occurredAt'>[]): RecordedExecutionEvent[] =>
  events.map((e, i) => ({ ...e, sequence: i + 1, occurredAt: at(i + 1) }) as RecordedExecutionEvent);

const queued = {
  type: 'run.queued',
  data: { conversationId: 'c1', provider: 'oa', input: { text: 'hi' }, requiredCapabilities: [], config: {}, idempotencyKey: null },
};
const call = (actionId: string, callId: string) => ({
  type: 'action.required',
  data: { actionId, kind: 'input', prompt: 'p', inputSchema: null, tool: { callId, name: 'f', arguments: { x: 1 } } },
});
const answer = (actionId: string) => ({ type: 'action.responded', data: { actionId, response: { value: 'ok' } } });

/** A tool loop with two parallel calls, then text: two turns. */
const TOOL_LOOP = log([
  queued,
  { type: 'run.started', data: { provider: 'oa' } },
  { type: 'output.text.delta', data: { delta: 'Let me ' } },
  { type: 'output.text.delta', data: { delta: 'see.' } },
  { type: 'provider.event', data: { namespace: 'openai', name: 'finish_reason', payload: { reason: 'tool_calls' } } },
  { type: 'provider.event', data: { namespace: 'openai', name: 'tool_calls', payload: { callIds: ['a', 'b'] } } },
  call('x1', 'a'),
  call('x2', 'b'),
  answer('x2'),
  answer('x1'),
  { type: 'output.text.delta', data: { delta: 'Done.' } },
  { type: 'output.text.done', data: { text: 'Let me see.Done.' } },
  { type: 'run.completed', data: { usage: { inputTokens: 3, outputTokens: 4 } } },
] as never);

const fold = (events: RecordedExecutionEvent[], turn: number) => {
  const f = new ResponseFold('e1', turn);
  const out = events.flatMap((e) => f.apply(e));
  return { f, out };
};

describe('ResponseFold (docs/responses-api.md#events)', () => {
  it('the first turn ends completed once both announced calls are asked, not after the first', () => {
    const afterOne = fold(TOOL_LOOP.slice(0, 7), 1);
    expect(afterOne.f.ended).toBe(false);
    const { f, out } = fold(TOOL_LOOP, 1);
    expect(f.current).toMatchObject({ id: 'resp_e1', status: 'completed', usage: null });
    expect(f.current!.output.map((i) => i.type)).toEqual(['message', 'function_call', 'function_call']);
    expect(out.at(-1)!.type).toBe('response.completed');
    expect(out.filter((e) => e.type === 'response.completed')).toHaveLength(1);
  });

  it('the answer starts the second turn, which carries the usage and the rest of the text', () => {
    const { f, out } = fold(TOOL_LOOP, 2);
    expect(f.current).toMatchObject({ id: 'resp_e1_2', previous_response_id: 'resp_e1', status: 'completed', usage: { total_tokens: 7 } });
    expect(out.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(f.outputs).toEqual([
      { callId: 'b', output: 'ok' },
      { callId: 'a', output: 'ok' },
    ]);
  });

  it('a turn the log has not reached has no response', () => {
    expect(fold(TOOL_LOOP, 3).f.current).toBeNull();
  });

  it('is prefix-stable: the events of any prefix of the log are a prefix of the events of the whole log', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: TOOL_LOOP.length }), fc.integer({ min: 1, max: 2 }), (cut, turn) => {
        const whole = fold(TOOL_LOOP, turn).out;
        const prefix = fold(TOOL_LOOP.slice(0, cut), turn).out;
        expect(whole.slice(0, prefix.length)).toEqual(prefix);
        expect(prefix.map((e) => e.sequence_number)).toEqual(prefix.map((_, i) => i));
      }),
    );
  });

  it('a failed run is a failed response with the run.failed error; its open message is incomplete', () => {
    const { f, out } = fold(
      log([
        queued,
        { type: 'output.text.delta', data: { delta: 'Hal' } },
        { type: 'run.failed', data: { error: { code: 'PROVIDER_ERROR', message: 'upstream said no' } } },
      ] as never),
      1,
    );
    expect(f.current).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_ERROR', message: 'upstream said no' }, completed_at: null });
    expect(f.current!.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    expect(out.at(-1)!.type).toBe('response.failed');
  });
});

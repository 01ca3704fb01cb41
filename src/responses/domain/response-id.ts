/**
 * docs/responses-api.md#ids: a response is one turn of one execution. The first turn of execution
 * `<id>` is `resp_<id>`; the turn that an answer to its function calls starts is `resp_<id>_2`, and
 * so on. An auditor strips `resp_` (and the turn suffix) to get the execution id back.
 */
export interface ResponseRef {
  executionId: string;
  /** 1 for the turn that `run.queued` starts. */
  turn: number;
}

/** Execution ids never contain `:`, `/` or `_` (the server makes UUIDv7s). */
const ID = /^resp_([^_:/]+)(?:_([1-9]\d{0,5}))?$/;

export const responseIdOf = ({ executionId, turn }: ResponseRef): string => (turn === 1 ? `resp_${executionId}` : `resp_${executionId}_${turn}`);

/** Null when the id cannot name a response (it then answers like one that does not exist). */
export function parseResponseId(id: string): ResponseRef | null {
  const match = ID.exec(id);
  if (!match) return null;
  const turn = match[2] === undefined ? 1 : Number(match[2]);
  // `_1` is never issued: the first turn has one spelling only.
  if (match[2] === '1') return null;
  return { executionId: match[1], turn };
}

/** Output item ids: stable, derived from the execution event that opened the item. */
export const messageItemId = (executionId: string, sequence: number) => `msg_${executionId}_${sequence}`;
export const functionCallItemId = (executionId: string, sequence: number) => `fc_${executionId}_${sequence}`;

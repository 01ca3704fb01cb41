import { ValidationError } from '../../common/errors/request-errors';
import { codePointLength } from '../../common/code-points';
import { valueProblem } from '../../common/json-schema/schema-checker';
import { ActionState } from '../domain/execution-state';

const present = (v: unknown) => v !== undefined && v !== null;

/**
 * The body of an answer checked against its action (docs/api.md#actions), returned as it will be stored: the body
 * as sent, less optional fields sent as null.
 */
export async function actionResponse(action: ActionState, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (action.kind === 'approval') {
    for (const key of Object.keys(body)) {
      if (key !== 'decision' && key !== 'comment') throw new ValidationError(`${key} is not a known field of an approval response`);
    }
    if (body.decision !== 'approve' && body.decision !== 'deny') throw new ValidationError('decision must be "approve" or "deny"');
    if (!present(body.comment)) return { decision: body.decision };
    if (typeof body.comment !== 'string' || body.comment.length === 0 || codePointLength(body.comment) > 2000) {
      throw new ValidationError('comment must be a string of 1 to 2000 characters');
    }
    return { decision: body.decision, comment: body.comment };
  }
  for (const key of Object.keys(body)) {
    if (key !== 'value') throw new ValidationError(`${key} is not a known field of an input response`);
  }
  if (!('value' in body)) throw new ValidationError('value is required');
  if (action.inputSchema) {
    const problem = await valueProblem(action.inputSchema, body.value);
    if (problem) throw new ValidationError(problem);
  }
  return { value: body.value };
}

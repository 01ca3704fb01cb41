import { getMetadataStorage, validate } from 'class-validator';
import { ValidationError } from '../../common/errors/request-errors';
import { valueProblem } from '../../common/json-schema/schema-checker';
import { ActionState } from '../domain/execution-state';
import { ApprovalAnswerDto, InputAnswerDto } from '../http/respond-to-action.dto';

const BODIES: Record<ActionState['kind'], new () => object> = { approval: ApprovalAnswerDto, input: InputAnswerDto };

/** The body as an instance of its DTO, own keys kept as they are (even `__proto__`, which assignment would not). */
function asInstance(dto: new () => object, body: Record<string, unknown>): object {
  const instance = Object.create(dto.prototype) as object;
  for (const [key, value] of Object.entries(body)) Object.defineProperty(instance, key, { value, enumerable: true, writable: true, configurable: true });
  return instance;
}

/** The fields the DTO declares. */
const fieldsOf = (dto: new () => object): Set<string> =>
  new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(dto, '', true, false)
      .map((rule) => rule.propertyName),
  );

/**
 * The first problem, in the words docs/api.md#actions uses: an unknown field first, then each
 * field in order. Unknown fields are found here, not by class-validator's whitelist, which lets
 * keys such as `__proto__` or `constructor` through.
 */
async function bodyProblem(action: ActionState, body: Record<string, unknown>): Promise<string | null> {
  const dto = BODIES[action.kind];
  const fields = fieldsOf(dto);
  const unknown = Object.keys(body).find((key) => !fields.has(key));
  if (unknown !== undefined) return `${unknown} is not a known field of an ${action.kind} response`;
  const [first] = await validate(asInstance(dto, body), { stopAtFirstError: true });
  return first?.constraints ? Object.values(first.constraints)[0] : null;
}

/**
 * The body of an answer checked against its action (docs/api.md#actions), returned as it will be stored: the body
 * as sent, less optional fields sent as null.
 */
export async function actionResponse(action: ActionState, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const problem = await bodyProblem(action, body);
  if (problem) throw new ValidationError(problem);
  if (action.kind === 'approval') {
    const { decision, comment } = body as unknown as ApprovalAnswerDto;
    return comment === undefined || comment === null ? { decision } : { decision, comment };
  }
  if (action.inputSchema) {
    const valueIssue = await valueProblem(action.inputSchema, body.value);
    if (valueIssue) throw new ValidationError(valueIssue);
  }
  return { value: body.value };
}

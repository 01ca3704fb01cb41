import type { OpenAPIObject, OperationObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/**
 * Fastify answers HEAD on every GET route (the GET's status and headers, no body); Nest's scanner
 * sees only the GET. Each HEAD operation is the GET's, so its statuses and media types are the same.
 */
function addHeadOperations(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    if (!item.get || item.head) continue;
    const get: OperationObject = item.get;
    item.head = {
      ...get,
      operationId: get.operationId && `${get.operationId}_head`,
      summary: `${get.summary ?? ''} (headers only)`.trim(),
      description: 'As GET, without the body: the same status and headers, `content-length` included.',
    };
  }
}

const closed = new Set<string>();

/**
 * The class's schema allows no properties beyond the declared ones, so schemas side by side in a
 * `oneOf` cannot both match (the library has no option for it). Classes without `@ApiSchema` only.
 */
export const ClosedSchema = (): ClassDecorator => (target) => void closed.add(target.name);

function closeSchemas(document: OpenAPIObject): void {
  for (const name of closed) {
    const schema = document.components?.schemas?.[name] as SchemaObject | undefined;
    if (!schema) throw new Error(`the OpenAPI document has no schema ${name} to close`);
    schema.additionalProperties = false;
  }
}

/** What the scanner cannot say from the decorators alone. */
export function completeDocument(document: OpenAPIObject): OpenAPIObject {
  addHeadOperations(document);
  closeSchemas(document);
  return document;
}

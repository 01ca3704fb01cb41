import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { PROTOCOL_VERSION, RUNTIME_VERSION } from '../common/runtime-info';
import { completeDocument } from './complete-document';
import { ErrorEnvelope } from './error-envelope';

export const DOCS_PATH = '/docs';
export const DOCS_JSON_PATH = '/docs/json';

const DESCRIPTION = `Runledger's HTTP API (protocol version ${PROTOCOL_VERSION}): conversations, executions, their events
(JSON replay and SSE), actions and artifacts. Every error is \`{"error": {"code", "message", "details"?}}\`.
The reference in words is docs/api.md in the repository.`;

const config = new DocumentBuilder()
  .setTitle('Runledger')
  .setDescription(DESCRIPTION)
  .setVersion(RUNTIME_VERSION)
  .addBearerAuth(
    {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'API key or JWT',
      description: 'When auth is on: an API key from API_KEYS, or an OIDC access token (JWT)',
    },
    'bearer',
  )
  .addSecurityRequirements('bearer')
  .build();

/**
 * The one description of the API's shapes: the controllers' routes, their DTOs and the response
 * classes they return. The e2e harness validates every response the suites receive against it
 * (test/support/contract.ts), so it cannot drift from the wire.
 */
export function createApiDocument(app: NestFastifyApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorEnvelope], autoTagControllers: false });
  return completeDocument(document);
}

/**
 * The OpenAPI document, generated from the controllers, DTOs and response classes, at `/docs/json`, and Swagger UI
 * at `/docs`. The document is built on the first request, not at start: a mistake in it breaks
 * the docs, never the service, and the e2e suite builds it on every run.
 *
 * Swagger UI's page loads its scripts from files under `/docs/` (no inline script), so it works
 * under a `script-src 'self'` CSP; its inline `<style>` needs `style-src 'unsafe-inline'`, which
 * helmet's default CSP allows.
 */
export function setupApiDocs(app: NestFastifyApplication): void {
  SwaggerModule.setup(DOCS_PATH, app, () => createApiDocument(app), {
    jsonDocumentUrl: DOCS_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'Runledger API',
    // No badge fetched from validator.swagger.io: the page makes no third-party request (and a
    // CSP's img-src 'self' would block it anyway).
    swaggerOptions: { validatorUrl: null },
  });
}

import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { PROTOCOL_VERSION, RUNTIME_VERSION } from '../runtime/runtime-info';
import { ErrorEnvelope } from './schemas/error.schema';

export const DOCS_PATH = '/docs';
export const DOCS_JSON_PATH = '/docs/json';

const DESCRIPTION = `Runledger's HTTP API (protocol version ${PROTOCOL_VERSION}): conversations, executions, their events
(JSON replay and SSE), actions and artifacts. Every error is \`{"error": {"code", "message", "details"?}}\`.
The reference in words is docs/api.md in the repository.`;

/**
 * The OpenAPI document, generated from the controllers and DTOs, at `/docs/json`, and Swagger UI
 * at `/docs`. The document is built on the first request, not at start: a mistake in it breaks
 * the docs, never the service, and the e2e suite builds it on every run.
 *
 * Swagger UI's page loads its scripts from files under `/docs/` (no inline script), so it works
 * under a `script-src 'self'` CSP; its inline `<style>` needs `style-src 'unsafe-inline'`, which
 * helmet's default CSP allows.
 */
export function setupApiDocs(app: NestFastifyApplication): void {
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
  SwaggerModule.setup(DOCS_PATH, app, () => SwaggerModule.createDocument(app, config, { extraModels: [ErrorEnvelope], autoTagControllers: false }), {
    jsonDocumentUrl: DOCS_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'Runledger API',
    // No badge fetched from validator.swagger.io: the page makes no third-party request (and a
    // CSP's img-src 'self' would block it anyway).
    swaggerOptions: { validatorUrl: null },
  });
}

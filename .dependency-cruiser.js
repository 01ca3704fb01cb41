/**
 * Layering rules, checked by dependency-cruiser as part of `npm run lint` (and so of `npm test`).
 * Type-only imports count (tsPreCompilationDeps): a domain file that imports a Fastify type
 * depends on Fastify all the same. test/docs/lint-rules.e2e-spec.ts proves the rules bite.
 */

/** Where Fastify may be imported: the HTTP edge. */
const HTTP_EDGE = [
  '^src/http/',
  '^src/[^/]+/http/',
  '\\.(controller|responder|hook)\\.ts$',
  '^src/(app|main)\\.ts$',
  // Known, accepted today: the module that installs the metrics onResponse hook on the Fastify
  // instance, and the module that mounts /docs on it. Both are edge wiring outside an http folder.
  '^src/metrics/metrics\\.module\\.ts$',
  '^src/openapi/api-docs\\.ts$',
];

/** Storage adapters; only the event-store module (its gateway and factory) chooses among them. */
const ADAPTERS = '^src/event-store/(sqlite|postgres|eventstoredb)/';

/**
 * Known violations of adapters-only-from-event-store, recorded rather than allowed wholesale: each
 * entry is one file, and a new importer anywhere else fails the lint.
 */
const KNOWN_ADAPTER_IMPORTERS = [
  // The offline CLI (export, rebuild, verify) opens whichever store the files or URL name, without
  // the Nest module; a factory in src/event-store/ for it to call would remove this.
  '^src/cli/offline-files\\.ts$',
  // Reads SQLite group-commit figures off the concrete SqliteEventStore for /metrics.
  '^src/metrics/metrics\\.module\\.ts$',
];

/**
 * What of a read model (src/read-models/<slice>/) the rest of the code may import: its queries
 * (`*.query.ts`, answered over the QueryBus), the search cursor the search route decodes, and the
 * two small queries the runner and the restart sweep take by injection. Never its projection,
 * its tables' statements or its handlers.
 */
const READ_MODEL_SURFACE = [
  '\\.query\\.ts$',
  '^src/read-models/executions/search-cursor\\.ts$',
  '^src/read-models/executions/conversation-history\\.ts$',
  '^src/read-models/executions/in-flight-executions\\.ts$',
];
/**
 * Known importers of the runner from src/executions/commands/, recorded by file: the start handler
 * holds a tenant's running place and launches the session it has just queued.
 */
const KNOWN_RUNNER_IMPORTERS = ['^src/executions/commands/start-execution\\.handler\\.ts$'];

/** Where the status-carrying ApiError may be made: the HTTP edge, without the two known modules. */
const HTTP_ERROR_EDGE = ['^src/http/', '^src/[^/]+/http/', '\\.(controller|responder|hook)\\.ts$'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment:
        'A src/<feature>/domain/ file imports only src/common/ and its own domain folder: no npm package ' +
        '(@nestjs, fastify, …), no node: module, no other layer.',
      from: { path: '^src/([^/]+)/domain/' },
      to: { pathNot: ['^src/common/', '^src/$1/domain/'] },
    },
    {
      name: 'fastify-only-at-the-http-edge',
      severity: 'error',
      comment:
        'fastify, @fastify/*, fastify-plugin and @nestjs/platform-fastify are imported only by src/http/, ' +
        'src/<feature>/http/, *.controller.ts, *.responder.ts, *.hook.ts, src/app.ts and src/main.ts ' +
        '(plus the two known modules listed in HTTP_EDGE).',
      from: { path: '^src/', pathNot: HTTP_EDGE },
      to: { path: '(^|/)node_modules/(fastify|@fastify/[^/]+|fastify-plugin|@nestjs/platform-fastify)/' },
    },
    {
      name: 'adapters-only-from-event-store',
      severity: 'error',
      comment: 'src/event-store/{sqlite,postgres,eventstoredb}/ are imported only from inside src/event-store/.',
      // Unit specs beside the code may use a real adapter as their store.
      from: { path: '^src/', pathNot: ['^src/event-store/', '\\.spec\\.ts$', ...KNOWN_ADAPTER_IMPORTERS] },
      to: { path: ADAPTERS },
    },
    {
      name: 'read-model-slices-apart',
      severity: 'error',
      comment:
        'A read-model slice (src/read-models/<slice>/) imports no other slice but its queries (*.query.ts, over the ' +
        'QueryBus): each slice alone answers for its own tables. The shared infrastructure is src/read-models/*.ts.',
      from: { path: '^src/read-models/([^/]+)/' },
      to: { path: '^src/read-models/[^/]+/', pathNot: ['^src/read-models/$1/', '\\.query\\.ts$'] },
    },
    {
      name: 'features-use-read-models-through-their-queries',
      severity: 'error',
      comment:
        'src/executions/, src/conversations/ and src/feed/ reach a read model only through READ_MODEL_SURFACE: the ' +
        'read models import their domain, never the other way round but for these small queries.',
      from: { path: '^src/(executions|conversations|feed)/' },
      to: { path: '^src/read-models/[^/]+/', pathNot: READ_MODEL_SURFACE },
    },
    {
      name: 'commands-reach-the-runner-through-the-log',
      severity: 'error',
      comment:
        'src/executions/commands/ does not import src/executions/runner/: a cancel or an answer is appended to the ' +
        'log, and the runner follows the log (docs/operations.md#several-instances-on-postgresql).',
      from: { path: '^src/executions/commands/', pathNot: KNOWN_RUNNER_IMPORTERS },
      to: { path: '^src/executions/runner/' },
    },
    {
      name: 'http-statuses-only-at-the-http-edge',
      severity: 'error',
      comment:
        'src/http/api-error.ts (errors with an HTTP status) is imported only by src/http/, src/<feature>/http/, ' +
        '*.controller.ts, *.responder.ts and *.hook.ts; everything else throws the errors of src/common/errors/ ' +
        '(docs/design.md#errors).',
      from: { path: '^src/', pathNot: HTTP_ERROR_EDGE },
      to: { path: '^src/http/api-error\\.ts$' },
    },
    {
      name: 'no-cycles-between-top-level-folders',
      severity: 'error',
      comment: 'No import cycle that leaves a top-level folder of src/ and comes back to it.',
      from: { path: '^src/([^/]+)/' },
      to: { circular: true, viaSomeNot: '^src/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['cjs', 'es6'],
    reporterOptions: { text: { highlightFocused: true } },
  },
};

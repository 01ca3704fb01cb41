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
  // Maps SQLite errors of the read-model database through the SQLite adapter's error mapper; the
  // mapper belongs in src/common/ or beside the read models.
  '^src/projections/projector\\.ts$',
  // Reads SQLite group-commit figures off the concrete SqliteEventStore for /metrics.
  '^src/metrics/metrics\\.module\\.ts$',
];

/** Where the status-carrying ApiError may be made: the HTTP edge, without the two known modules. */
const HTTP_ERROR_EDGE = ['^src/http/', '^src/[^/]+/http/', '\\.(controller|responder|hook)\\.ts$'];

/**
 * The throwers of the transitional src/common/api-error.ts (a code without a status), recorded
 * rather than allowed wholesale: each should throw a named error of src/common/errors/ instead,
 * and then the file goes.
 */
const KNOWN_LEGACY_ERROR_IMPORTERS = ['^src/executions/runner/execution-runner\\.ts$', '^src/executions/commands/respond-to-action\\.handler\\.ts$'];

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
      name: 'no-new-legacy-error-throwers',
      severity: 'error',
      comment: 'src/common/api-error.ts is transitional: only the files in KNOWN_LEGACY_ERROR_IMPORTERS still import it.',
      from: { path: '^src/', pathNot: KNOWN_LEGACY_ERROR_IMPORTERS },
      to: { path: '^src/common/api-error\\.ts$' },
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

// ESLint 9 flat config: typescript-eslint's type-checked recommended set over src/, test/ and bench/,
// tuned so that what it reports is worth fixing. `npm run lint` runs it with dependency-cruiser
// (.dependency-cruiser.js), and `npm test` runs `npm run lint` first.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'clients/typescript/dist/**', 'clients/typescript/src/generated/**', 'console/dist/**', 'console/vite.config.ts', 'coverage/**', 'node_modules/**', 'data/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'clients/typescript/src/**/*.ts', 'console/src/**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The habits this lint exists for: a promise is awaited, returned, .catch()ed, or dropped on
      // purpose with `void`; and no promise goes where a void callback is expected.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',

      // Async methods without an await are deliberate here: they implement Promise-returning ports
      // (the synchronous SQLite store, fakes in specs) and turn a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // NUL and other control characters are matched on purpose (input validation, fuzzing).
      'no-control-regex': 'off',
      // Re-rejecting a caught error (unknown) or an AbortSignal's reason (any) is fine; rejecting
      // with a string or a plain object is still reported.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // `_`-prefixed names are placeholders; `{ dropped, ...rest }` drops a field on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // A `let` a closure reads before its first assignment stays a `let` (a `const` there would
      // be a temporal-dead-zone ReferenceError if the closure ran early).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // TODO(issue 15): about 25 redundant assertions across src/ and test/; removing them is an
      // autofix (`--fix`) left for when fewer branches are open on those files.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // TODO(issue 15): the 22 reports under src/ are all JSON.parse() of stored rows, cursors and
      // package.json flowing into typed fields; typing them (a parse helper per row shape) is the
      // next step. Explicit `any` and calls through `any` stay errors in src/.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The log context is carried by hand (src/observability/request-context.ts): an AsyncLocalStorage
    // entered once keeps a promise hook on for every promise of the process on Node 20.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'nestjs-pino/storage', message: 'carry the log context by hand (request-context.ts): no AsyncLocalStorage on the hot path' },
            { name: 'node:async_hooks', importNames: ['AsyncLocalStorage', 'createHook'], message: 'no async hooks on the hot path (request-context.ts)' },
            { name: 'async_hooks', importNames: ['AsyncLocalStorage', 'createHook'], message: 'no async hooks on the hot path (request-context.ts)' },
          ],
        },
      ],
    },
  },
  {
    // Specs, e2e suites and benches read HTTP bodies and fixtures as `any` on purpose: the shape is
    // what they assert. The production code under src/ keeps these rules.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'src/**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
    },
  },
);

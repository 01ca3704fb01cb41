import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const GENERATED = join(ROOT, 'clients', 'typescript', 'src', 'generated', 'openapi.ts');

/**
 * The SDK's types are generated from docs/openapi.json (itself checked against the running server
 * by test/docs/openapi-file.e2e-spec.ts), and `npm run build` compiles the SDK against them: a
 * route or field that changes shape breaks the build or this test, never a user at run time.
 */
describe('clients/typescript types', () => {
  it('are what openapi-typescript generates from docs/openapi.json', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'runledger-sdk-types-')), 'openapi.ts');
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), join(ROOT, 'docs', 'openapi.json'), '-o', out], {
      stdio: 'pipe',
    });
    const text = readFileSync(out, 'utf8');
    if (process.env.RUNLEDGER_WRITE_OPENAPI === '1') writeFileSync(GENERATED, text);
    expect({ file: 'clients/typescript/src/generated/openapi.ts', upToDate: readFileSync(GENERATED, 'utf8') === text }).toEqual({
      file: 'clients/typescript/src/generated/openapi.ts',
      upToDate: true,
    });
  });
});

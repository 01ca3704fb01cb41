import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, useApp } from '../support/app-harness';

const FILE = join(__dirname, '..', '..', 'docs', 'openapi.json');

/**
 * docs/openapi.json is the document `/docs/json` serves, committed so the shapes can be read (and
 * clients generated) without running the server. `npm run docs:openapi` rewrites it.
 */
describe('docs/openapi.json', () => {
  const app = useApp();

  it('is the document the server serves', async () => {
    const served = (await api(app.baseUrl, 'GET', '/docs/json')).body;
    const text = `${JSON.stringify(served, null, 2)}\n`;
    if (process.env.RUNLEDGER_WRITE_OPENAPI === '1') writeFileSync(FILE, text);
    expect({ file: 'docs/openapi.json', upToDate: readFileSync(FILE, 'utf8') === text }).toEqual({ file: 'docs/openapi.json', upToDate: true });
  });
});

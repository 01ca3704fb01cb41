import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => !!p);

/** Debian's chromium (or CHROMIUM_PATH): the browser suites drive a real one, never a stand-in. */
export const chromiumPath = CANDIDATES.find((path) => existsSync(path)) ?? null;

/**
 * Like the PostgreSQL suites: without a browser they are skipped with a one-line reason, unless
 * RUNLEDGER_BROWSER_REQUIRED=1 (set by .ci/run, which installs chromium) makes that a failure.
 */
export function describeInBrowser(name: string, body: () => void): void {
  if (chromiumPath === null && process.env.RUNLEDGER_BROWSER_REQUIRED !== '1') {
    process.stderr.write(`${name}: skipped, no chromium (apt-get install chromium, or set CHROMIUM_PATH)\n`);
    describe.skip(name, body);
    return;
  }
  describe(name, body);
}

export async function launchBrowser(): Promise<Browser> {
  if (chromiumPath === null) throw new Error('no chromium: apt-get install chromium, or set CHROMIUM_PATH');
  return chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** Screenshots go to test-output/console/, kept by CI as artifacts of the run. */
export const SCREENSHOTS = join(__dirname, '..', '..', 'test-output', 'console');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Errors the page reports (a script that fails, a CSP violation): a test expects none. */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

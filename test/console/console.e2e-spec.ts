import type { Browser, Page } from 'playwright-core';
import { RunledgerClient } from '../../clients/typescript/src';
import { useApp } from '../support/app-harness';
import { describeInBrowser, launchBrowser, pageErrors, screenshot } from '../support/browser';

const KEY = 'console-test-key-0123456789abcdef';
const approvalScript = {
  script: [
    { type: 'text', text: 'Drafting the release notes. ' },
    { type: 'action', kind: 'approval', prompt: 'Publish the notes?' },
    { type: 'text', text: 'Published.' },
  ],
};

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(() => browser?.close());

async function openPage(baseUrl: string, hash = ''): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors = pageErrors(page);
  await page.goto(`${baseUrl}/console/${hash}`);
  return { page, errors };
}

/** Waits in the page for an execution to pause on its action, approves it there, and sees it complete. */
async function approveInPage(page: Page, baseUrl: string, client: RunledgerClient, conversationId: string, shot: string) {
  const { execution } = await client.start({ conversationId, provider: 'scripted', input: { text: 'notes' }, config: approvalScript });
  await page.goto(`${baseUrl}/console/#/executions/${execution.id}`);
  await page.getByRole('heading', { name: 'Publish the notes?' }).waitFor();
  await page.getByText('requires action').first().waitFor();
  await page.getByLabel('Comment (optional)').fill('Looks right');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.locator('.badge.completed').first().waitFor();
  await page.locator('.output', { hasText: 'Drafting the release notes. Published.' }).waitFor();
  await screenshot(page, shot);
  const [action] = await client.actions(execution.id);
  expect(action).toMatchObject({ status: 'resolved', response: { decision: 'approve', comment: 'Looks right' } });
}

describeInBrowser('console in headless Chromium', () => {
  const ctx = useApp({ conversation: true });
  const client = () => new RunledgerClient({ baseUrl: ctx.baseUrl });

  it('lists executions newest first, and approves a paused execution in the page until it completes', async () => {
    await client().start({ conversationId: ctx.conversationId, provider: 'scripted', input: { text: 'an earlier run' } });
    const { page, errors } = await openPage(ctx.baseUrl);
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    await approveInPage(page, ctx.baseUrl, client(), ctx.conversationId, 'approve');
    await page.locator('.timeline summary', { hasText: 'run.completed' }).click();
    await page.locator('pre.json').filter({ hasText: '"type": "run.completed"' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('renders an input form from the schema and checks the answer before sending it', async () => {
    const { execution } = await client().start({
      conversationId: ctx.conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: {
        script: [
          {
            type: 'action',
            kind: 'input',
            prompt: 'How many copies?',
            inputSchema: { type: 'object', properties: { copies: { type: 'integer', minimum: 1 } }, required: ['copies'] },
          },
          { type: 'text', text: 'Printed.' },
        ],
      },
    });
    const { page, errors } = await openPage(ctx.baseUrl, `#/executions/${execution.id}`);
    await page.getByLabel('copies', { exact: true }).fill('0');
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.getByText('copies must be at least 1').waitFor();
    expect((await client().actions(execution.id))[0].status).toBe('pending');
    await page.getByLabel('copies', { exact: true }).fill('3');
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.locator('.output', { hasText: 'Printed.' }).waitFor();
    expect((await client().actions(execution.id))[0].response).toEqual({ value: { copies: 3 } });
    await screenshot(page, 'input-form');
    expect(errors).toEqual([]);
  });

  it('cancels with a reason, shows the providers matrix and follows the audit feed, on a narrow screen', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
    const errors = pageErrors(page);
    const { execution } = await client().start({
      conversationId: ctx.conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: { script: [{ type: 'delay', ms: 60_000 }] },
    });
    await page.goto(`${ctx.baseUrl}/console/#/executions/${execution.id}`);
    await page.getByLabel('Reason (optional)').fill('not needed');
    await page.getByRole('button', { name: 'Cancel execution' }).click();
    await page.locator('.facts dd', { hasText: 'not needed' }).waitFor();
    expect((await client().execution(execution.id)).cancellation).toMatchObject({ reason: 'not needed' });
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshot(page, 'narrow-cancel');

    await page.goto(`${ctx.baseUrl}/console/#/providers`);
    await page.getByRole('rowheader', { name: 'output.text.stream' }).waitFor();
    expect(await page.locator('td.level').count()).toBeGreaterThan(5);
    await page.goto(`${ctx.baseUrl}/console/#/feed`);
    await page.getByText(/Following live from position/).waitFor();
    const started = await client().start({ conversationId: ctx.conversationId, provider: 'scripted', input: { text: 'fed' } });
    await page
      .locator('.timeline summary')
      .filter({ hasText: started.execution.id.slice(-12) })
      .first()
      .waitFor();
    await screenshot(page, 'feed');
    expect(errors).toEqual([]);
  });
});

describeInBrowser('console with authentication on', () => {
  const ctx = useApp({ env: { API_KEYS: `acme:${KEY}`, AUTH_FAILURES_PER_MINUTE: '0' } });
  const client = () => new RunledgerClient({ baseUrl: ctx.baseUrl, apiKey: KEY });

  it('serves the page without a key, asks for one, keeps it for the tab, and approves with it', async () => {
    const conversation = await client().createConversation({ title: 'with auth' });
    const { page, errors } = await openPage(ctx.baseUrl);
    await page.getByRole('heading', { name: 'API key' }).waitFor();
    await page.getByLabel('Key').fill('wrong-key-wrong-key-wrong');
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText('The server refused that key').waitFor();
    await page.getByLabel('Key').fill(KEY);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await page.getByRole('heading', { name: 'Executions' }).waitFor();
    expect(await page.evaluate("sessionStorage.getItem('runledger.apiKey')")).toBe(KEY);
    await approveInPage(page, ctx.baseUrl, client(), conversation.id, 'approve-with-auth');
    // The refused key's 401 is the only error the page saw.
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
  });
});

import OpenAI from 'openai';
import { api, useApp } from '../support/app-harness';
import { expectValid } from './support/open-responses-schemas';
import { collect, valid } from './support/responses-client';

const ACME_KEY = 'acme-secret-key-0123456789';
const GLOBEX_KEY = 'globex-secret-key-0123456789';

/** docs/responses-api.md#tenants: a response is its execution, and belongs to the tenant whose key created it. */
describe('/v1/responses: authentication and tenant isolation', () => {
  const app = useApp({ env: { API_KEYS: `acme:${ACME_KEY},globex:${GLOBEX_KEY}` } });
  const as = (apiKey: string) => new OpenAI({ baseURL: `${app.baseUrl}/v1`, apiKey, maxRetries: 0 });

  it('a missing or wrong key is the SDK AuthenticationError', async () => {
    const error = await as('wrong-key-0123456789')
      .responses.create({ model: 'scripted', input: 'hi' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    const raw = await api(app.baseUrl, 'GET', '/v1/responses/resp_x');
    expect(raw.status).toBe(401);
    expectValid('error', raw.body);
  });

  it("another tenant's response answers exactly like one that does not exist, on every route", async () => {
    const acme = as(ACME_KEY);
    const globex = as(GLOBEX_KEY);
    const mine = valid(await acme.responses.create({ model: 'scripted', input: 'acme only' }));
    const notFound = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    };
    await notFound(globex.responses.retrieve(mine.id));
    await notFound(globex.responses.retrieve(mine.id, { stream: true }).then((stream) => collect(stream)));
    await notFound(globex.responses.cancel(mine.id));
    await notFound(globex.responses.inputItems.list(mine.id));
    await notFound(globex.responses.create({ model: 'scripted', input: 'peek', previous_response_id: mine.id }));
    await notFound(globex.responses.create({ model: 'scripted', input: 'peek', conversation: (mine.conversation as { id: string }).id }));
    // The owner still sees it, and the execution API agrees about whose it is.
    expect((await acme.responses.retrieve(mine.id)).status).toBe('completed');
    const execution = await api(app.baseUrl, 'GET', `/v1/executions/${mine.id.slice(5)}`, undefined, { authorization: `Bearer ${GLOBEX_KEY}` });
    expect(execution.status).toBe(404);
  });
});

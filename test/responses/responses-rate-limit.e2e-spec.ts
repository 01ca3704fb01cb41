import OpenAI from 'openai';
import { useApp } from '../support/app-harness';
import { expectValid } from './support/open-responses-schemas';
import { client } from './support/responses-client';

/** docs/responses-api.md#errors: the tenant's request rate answers 429 in OpenAI's shape, the SDK's RateLimitError. */
describe('/v1/responses over the request rate', () => {
  const app = useApp({ env: { RATE_LIMIT_PER_MINUTE: '2' } });

  it('is the SDK RateLimitError with code RATE_LIMITED and Retry-After', async () => {
    const openai = client(app.baseUrl);
    const first = await openai.responses.create({ model: 'scripted', input: 'one' });
    await openai.responses.retrieve(first.id);
    const error = await openai.responses.retrieve(first.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', type: 'rate_limit_error' });
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toMatch(/^\d+$/);
    expectValid('error', { error: (error as { error: unknown }).error });
  });
});

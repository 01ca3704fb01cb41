import { api, storeEnv, tempSqlitePath } from '../support/app-harness';
import { built, exitWithin, killLeftovers, launch } from '../runtime/compiled-server';
import { DELIVERY_ENV, Receiver } from './receiver';

/** docs/webhooks.md#security: log lines name the webhook and the delivery, never a signing secret, at any level. */
(built ? describe : describe.skip)('webhook secrets stay out of the logs (compiled server)', () => {
  afterEach(killLeftovers);

  it('at LOG_LEVEL=debug, through create, rotate, retries and delivery', async () => {
    const receiver = await Receiver.start();
    try {
      const sqlitePath = tempSqlitePath();
      const server = await launch({ SQLITE_PATH: sqlitePath, ...(await storeEnv(sqlitePath)), LOG_LEVEL: 'debug', ...DELIVERY_ENV });
      receiver.reply = (_request, count) => (count === 1 ? 500 : 200);
      const hook = (await api(server.baseUrl, 'POST', '/v1/webhooks', { url: receiver.url, events: ['run.completed'] })).body;
      const rotated = (await api(server.baseUrl, 'POST', `/v1/webhooks/${hook.id}:rotate-secret`)).body;
      const conversationId = (await api(server.baseUrl, 'POST', '/v1/conversations', {})).body.id;
      await api(server.baseUrl, 'POST', '/v1/executions', { provider: 'scripted', conversationId, input: { text: 'a b' } });
      const [first] = await receiver.until((r) => r.length >= 2);
      server.child.kill('SIGTERM');
      expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
      const output = server.output();
      expect(output).toContain(`webhook ${hook.id} delivery ${String(first.headers['webhook-id'])}`);
      for (const secret of [hook.secret, rotated.secret]) {
        expect(output).not.toContain(secret);
        expect(output).not.toContain(secret.slice('whsec_'.length, 20));
      }
    } finally {
      await receiver.close();
    }
  });
});

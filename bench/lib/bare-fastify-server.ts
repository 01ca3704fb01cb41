/**
 * The baseline for request rates: bare Fastify (no Nest, no store) answering a JSON POST with a
 * 201 and a body shaped like an execution resource. Run as its own process, like the server.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
let n = 0;
app.post('/v1/executions', async (request, reply) => {
  const body = request.body as { conversationId: string; provider: string; input: { text: string } };
  n += 1;
  reply.code(201);
  return {
    id: `0192f3a4-5b6c-7d8e-9f01-${String(n).padStart(12, '0')}`,
    conversationId: body.conversationId,
    provider: body.provider,
    status: 'queued',
    input: body.input,
    createdAt: new Date().toISOString(),
    startedAt: null,
    endedAt: null,
    outputText: null,
    error: null,
    lastSequence: 1,
  };
});
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).then(
  () => process.stdout.write('listening\n'),
  (error) => {
    process.stderr.write(`${error}\n`);
    process.exit(1);
  },
);

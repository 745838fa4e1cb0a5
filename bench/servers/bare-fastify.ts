import Fastify from 'fastify';

/**
 * The ceiling: a bare Fastify route per lookup, answering the JSON the product answers (passed in
 * by the harness), with Fastify's defaults (no logger, no plugins), in a process of its own.
 */
const port = Number(process.env.PORT ?? 18_090);
const accessJson: unknown = JSON.parse(process.env.ACCESS_JSON ?? '{}');
const tokenJson: unknown = JSON.parse(process.env.TOKEN_JSON ?? '{}');

const app = Fastify();
app.get('/api/auth/v1/access/:subdomain', async () => accessJson);
app.get('/api/auth/v1/consumers/token/:token', async () => tokenJson);
await app.listen({ port, host: '127.0.0.1' });

process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});

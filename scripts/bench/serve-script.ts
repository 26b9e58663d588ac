import type { FastifyInstance } from 'fastify';

/**
 * The end of each of the bench's own servers (bare-server.ts, floor-server.ts): listens on a free
 * loopback port, prints {"port":N} (what servers.ts's startScript waits for), and on SIGTERM or SIGINT
 * closes the server, then `release`, then exits.
 */
export async function serveScript(app: FastifyInstance, release: () => void = () => {}): Promise<void> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : null })}\n`);
  const stop = () =>
    void app.close().then(() => {
      release();
      process.exit(0);
    });
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

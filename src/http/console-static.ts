import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const CONSOLE_PATH = '/console';

/** Where `npm run build` puts the console's page and assets (console/vite.config.ts), from src/ and from dist/ alike. */
export const CONSOLE_DIR = join(__dirname, '..', '..', 'console', 'dist');

/**
 * Serves the console's built files under /console/ (no key needed: they hold no tenant's data;
 * every API call the page makes carries the key it asks for). Without a build there is no
 * console, and /console is an ordinary 404.
 */
export function installConsole(fastify: FastifyInstance, dir = CONSOLE_DIR): boolean {
  if (!existsSync(join(dir, 'index.html'))) return false;
  // decorateReply off: Swagger UI's files (/docs/) are served by another instance of the plugin.
  void fastify.register(fastifyStatic, { root: dir, prefix: `${CONSOLE_PATH}/`, decorateReply: false, index: 'index.html', cacheControl: true, maxAge: 0 });
  fastify.get(CONSOLE_PATH, (_request, reply) => reply.redirect(`${CONSOLE_PATH}/`, 302));
  return true;
}

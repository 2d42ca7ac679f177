// `GET /healthz` on every listener: `ok` (200) while the engine is whole; 503 with the reasons while it
// serves in a reduced mode (src/engine/health.ts), so a probe or load balancer sees what an operator reads.
import type { FastifyReply } from 'fastify';
import type { Health } from '../../src/engine/health.js';

export function answerHealth(reply: FastifyReply, health: Health): FastifyReply {
  return reply
    .code(health.ok ? 200 : 503)
    .type('text/plain')
    .send(health.line());
}

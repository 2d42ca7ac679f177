// The first thing either listener does with a request: find the client's address (through trusted
// proxies only), refuse it while it is locked out after repeated failed authentication, and take a token
// from its rate bucket. 429 with Retry-After in both cases.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clientIp, type TrustedProxies } from '../../src/auth/client-ip.js';
import { RateLimiter, type Lockout } from '../../src/auth/rate-limit.js';
import { problem } from '../../src/http/problems.js';
import type { Metrics } from '../../src/metrics/metrics.js';
import { sendProblem } from './http-base.js';

declare module 'fastify' {
  interface FastifyRequest {
    clientIp: string;
  }
}

export interface ClientGuardDeps {
  surface: 'ingest' | 'api';
  ratePerSecond: number;
  trusted: TrustedProxies;
  lockout: Lockout;
  metrics: Metrics;
  now: () => number;
}

export function registerClientGuard(app: FastifyInstance, deps: ClientGuardDeps): void {
  const limiter = new RateLimiter(deps.ratePerSecond);
  app.decorateRequest('clientIp', '');
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    request.clientIp = clientIp(
      request.socket.remoteAddress,
      request.headers['x-forwarded-for'],
      deps.trusted,
    );
    const now = deps.now();
    const locked = deps.lockout.lockedFor(request.clientIp, now);
    if (locked > 0) {
      deps.metrics.authDenied.inc({ surface: deps.surface, reason: 'locked_out' });
      reply.header('retry-after', String(locked));
      return sendProblem(
        reply,
        problem(
          'too-many-requests',
          `too many failed authentications from this address; retry in ${locked} s`,
        ),
      );
    }
    const wait = limiter.take(request.clientIp, now);
    if (wait > 0) {
      deps.metrics.authDenied.inc({ surface: deps.surface, reason: 'rate_limited' });
      reply.header('retry-after', String(wait));
      return sendProblem(
        reply,
        problem(
          'too-many-requests',
          `rate limit of ${deps.ratePerSecond} requests/s per client; retry in ${wait} s`,
        ),
      );
    }
  });
}

// The first thing either listener does with a request: find the client's address (through trusted
// proxies only), refuse it while it is locked out after repeated failed authentication, and take a token
// from its rate bucket. 429 with Retry-After in both cases. Probes (`/healthz`, `/metrics`: open and
// unthrottled, per the spec) are never limited nor locked out: a monitor sharing an address with a client
// that guessed wrong must still see the service up. They are recognised by the route they matched, never
// by the raw URL.
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

/** Route patterns that are probes: answered whatever the client's rate or lockout. */
export const PROBE_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/metrics']);

export function registerClientGuard(app: FastifyInstance, deps: ClientGuardDeps): void {
  const limiter = new RateLimiter(deps.ratePerSecond);
  app.decorateRequest('clientIp', '');
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    request.clientIp = clientIp(
      request.socket.remoteAddress,
      request.headers['x-forwarded-for'],
      deps.trusted,
    );
    if (PROBE_ROUTES.has(request.routeOptions.url ?? '')) return;
    const now = deps.now();
    const tooMany = (reason: 'locked_out' | 'rate_limited', seconds: number, detail: string) => {
      deps.metrics.authDenied.inc({ surface: deps.surface, reason });
      reply.header('retry-after', String(seconds));
      return sendProblem(reply, problem('too-many-requests', `${detail}; retry in ${seconds} s`));
    };
    const locked = deps.lockout.lockedFor(request.clientIp, now);
    if (locked > 0) return tooMany('locked_out', locked, 'too many failed authentications from this address');
    const wait = limiter.take(request.clientIp, now);
    if (wait > 0)
      return tooMany('rate_limited', wait, `rate limit of ${deps.ratePerSecond} requests/s per client`);
  });
}

// Client addresses through trusted proxies, token buckets with a capped client table, and the lockout,
// on an explicit clock.
import { describe, expect, it } from 'vitest';
import { clientIp, TrustedProxies } from '../../src/auth/client-ip.js';
import { Lockout, RateLimiter } from '../../src/auth/rate-limit.js';

describe('client address', () => {
  const proxies = new TrustedProxies(['10.0.0.0/8', '2001:db8::/32']);
  it('believes X-Forwarded-For only through trusted proxies, and only the hops they appended', () => {
    expect(clientIp('203.0.113.5', '198.51.100.1', proxies)).toBe('203.0.113.5');
    expect(clientIp('10.1.2.3', '198.51.100.1', proxies)).toBe('198.51.100.1');
    // The client forged a first hop; the trusted proxy appended the real one.
    expect(clientIp('10.1.2.3', '1.2.3.4, 198.51.100.1', proxies)).toBe('198.51.100.1');
    // Two trusted proxies in a row.
    expect(clientIp('10.1.2.3', '1.2.3.4, 198.51.100.1, 10.9.9.9', proxies)).toBe('198.51.100.1');
    expect(clientIp('::ffff:10.1.2.3', '198.51.100.1', proxies)).toBe('198.51.100.1');
    expect(clientIp('2001:db8::1', '2001:db9::7', proxies)).toBe('2001:db9::7');
    expect(clientIp('10.1.2.3', 'not-an-ip', proxies)).toBe('10.1.2.3');
    expect(clientIp('10.1.2.3', undefined, proxies)).toBe('10.1.2.3');
  });
  it('refuses a CIDR that does not parse', () => {
    expect(() => new TrustedProxies(['10.0.0.0/40'])).toThrow(/not an address or CIDR/);
    expect(() => new TrustedProxies(['proxy.internal'])).toThrow(/not an address or CIDR/);
  });
});

describe('rate limiter', () => {
  it('allows a burst of twice the rate, then one per 1/rate seconds', () => {
    const limiter = new RateLimiter(2);
    const t = 1_000_000;
    for (let i = 0; i < 4; i++) expect(limiter.take('a', t)).toBe(0);
    expect(limiter.take('a', t)).toBe(1);
    expect(limiter.take('a', t + 500)).toBe(0);
    expect(limiter.take('b', t)).toBe(0);
  });
  it('caps the client table: new clients beyond it share one overflow bucket', () => {
    const limiter = new RateLimiter(1, 3);
    const t = 1_000_000;
    for (const c of ['a', 'b', 'c']) limiter.take(c, t);
    expect(limiter.clients).toBe(3);
    expect(limiter.take('d', t)).toBe(0);
    expect(limiter.take('e', t)).toBe(0);
    expect(limiter.take('f', t)).toBe(1); // d, e and f share the overflow's burst of 2
    expect(limiter.clients).toBe(3);
    // Once the known clients' buckets have refilled they are forgotten, and new ones get their own.
    expect(limiter.take('g', t + 10_000)).toBe(0);
    expect(limiter.clients).toBe(1);
  });
});

describe('lockout', () => {
  it('locks out after the threshold of failures within the window, until the lock expires', () => {
    const lockout = new Lockout({ threshold: 3, windowMs: 300_000, lockMs: 900_000 });
    const t = 1_000_000;
    expect(lockout.fail('a', t)).toBe(false);
    expect(lockout.fail('a', t + 2000)).toBe(false);
    // The first failure has left the window: still two.
    expect(lockout.fail('a', t + 301_000)).toBe(false);
    expect(lockout.lockedFor('a', t + 301_000)).toBe(0);
    expect(lockout.fail('a', t + 301_500)).toBe(true);
    expect(lockout.lockedFor('a', t + 301_500)).toBe(900);
    expect(lockout.lockedFor('b', t + 301_500)).toBe(0);
    expect(lockout.lockedFor('a', t + 301_500 + 900_000)).toBe(0);
  });
});

// An edge true only until a date (`valid_until`, src/graph/truth-expiry.ts): retracted once the date has
// passed; a report that restates it without `valid_until` says it no longer ends (twin: kept).
import { describe, expect, it } from 'vitest';
import { edge, envelope, node } from '../helpers/envelope.js';
import { testTenant } from '../helpers/tenant.js';

const user = node('User', 'acct/attacker');
const admin = node('IAM_Role', 'acct/account-admin', { crown_jewel: true });
const END = Date.parse('2026-11-22T12:00:00Z');
const timed = (props: Record<string, unknown>) => ({
  ...edge('CAN_ESCALATE_TO', user, admin, 0.9),
  properties: props,
});

describe('edges true until a date', () => {
  it('is retracted at the first expiry check after its date, not before', () => {
    const tenant = testTenant();
    tenant.writer.apply(
      envelope([user, admin], [timed({ valid_until: new Date(END).toISOString() })]),
      END - 7_200_000,
    );
    expect(tenant.writer.expireTimed(END - 1)).toBe(0);
    expect(tenant.graph.size).toBe(1);
    const version = tenant.writer.version;
    expect(tenant.writer.expireTimed(END)).toBe(1);
    expect(tenant.graph.size).toBe(0);
    expect(tenant.writer.version).toBeGreaterThan(version);
  });

  it('twin: restated without valid_until, it no longer ends', () => {
    const tenant = testTenant();
    tenant.writer.apply(
      envelope([user, admin], [timed({ valid_until: new Date(END).toISOString() })]),
      END - 7_200_000,
    );
    tenant.writer.apply(
      envelope([user, admin], [timed({ primitives: ['AttachUserPolicy'] })]),
      END - 3_600_000,
    );
    expect(tenant.writer.expireTimed(END + 1)).toBe(0);
    expect(tenant.graph.size).toBe(1);
  });
});

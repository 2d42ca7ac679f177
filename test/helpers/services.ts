// Tests against the real servers scripts/services.sh starts (NATS JetStream on 127.0.0.1:4222, PostgreSQL
// on 127.0.0.1:5432). A suite whose server is absent is skipped with the reason in its name, or, under
// REQUIRE_SERVICES=1 (.ci/run), fails with it.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { describe, it } from 'vitest';

export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
export const PG_DSN = process.env.TEST_PG_DSN ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether something accepts TCP connections at host:port, within a second. */
export function reachable(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function hostPort(url: string): [string, number] {
  const parsed = new URL(url);
  return [parsed.hostname, Number(parsed.port)];
}

/** Why the named servers cannot be used, or undefined when all are there. */
export async function missingServices(needs: {
  nats?: boolean;
  postgres?: boolean;
  natsServerBinary?: boolean;
}): Promise<string | undefined> {
  const missing: string[] = [];
  if (needs.nats && !(await reachable(...hostPort(NATS_URL))))
    missing.push(`NATS is not reachable at ${NATS_URL}`);
  if (needs.postgres && !(await reachable(...hostPort(PG_DSN))))
    missing.push(`PostgreSQL is not reachable at ${new URL(PG_DSN).host}`);
  if (needs.natsServerBinary) {
    try {
      execFileSync('nats-server', ['--version'], { stdio: 'ignore' });
    } catch {
      missing.push('the nats-server binary is not on PATH');
    }
  }
  return missing.length ? `${missing.join('; ')} (run: bash scripts/services.sh)` : undefined;
}

/** describe() when `reason` is undefined; otherwise a visible skip, or a failure under REQUIRE_SERVICES=1. */
export function describeWithServices(title: string, reason: string | undefined, body: () => void): void {
  if (reason === undefined) {
    describe(title, body);
    return;
  }
  if (process.env.REQUIRE_SERVICES === '1') {
    describe(title, () => {
      it('has the servers it needs', () => {
        throw new Error(`${reason}; REQUIRE_SERVICES=1, so this fails instead of skipping`);
      });
    });
    return;
  }
  console.warn(`skipping "${title}": ${reason}`);
  describe.skip(`${title} [skipped: ${reason}]`, body);
}

/** A prefix no other test run uses (bus subjects, stream names, schemas, lock names). */
export function uniqueName(kind: string): string {
  return `${kind}${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

/** Polls `condition` until it holds, failing with `what` past the deadline. */
export async function waitFor<T>(
  what: string,
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (${String(last)})` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * A DSN whose tables land in a schema of their own (created now, dropped by the returned cleanup), so test
 * runs and suites never share graph snapshots or audit chains.
 */
export async function schemaDsn(kind = 's'): Promise<{ dsn: string; schema: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const schema = uniqueName(kind);
  const admin = new pg.Client({ connectionString: PG_DSN });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_DSN);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    dsn: url.toString(),
    schema,
    async drop() {
      const client = new pg.Client({ connectionString: PG_DSN });
      await client.connect();
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

// A nats-server of a test's own on a loopback port with its own store directory, so a test can kill and
// restart it without touching the shared one on 4222.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { reachable, waitFor } from './services.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export class OwnNatsServer {
  private child?: ChildProcess;
  private constructor(
    readonly port: number,
    readonly storeDir: string,
  ) {}

  static async create(): Promise<OwnNatsServer> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'pathgate-nats-'));
    return new OwnNatsServer(await freePort(), dir);
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'nats-server',
      ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir],
      {
        stdio: 'ignore',
      },
    );
    this.child = child;
    await waitFor(
      `nats-server on port ${this.port}`,
      async () => child.exitCode === null && (await reachable('127.0.0.1', this.port)),
      15_000,
    );
  }

  /** SIGKILL: the broker vanishes as in a crash. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async dispose(): Promise<void> {
    await this.kill();
    await rm(this.storeDir, { recursive: true, force: true });
  }
}

// The service's runtime settings (docs/perf.md, "Settings that matter") are the same wherever it is started:
// `npm start`, the container image (deploy/Dockerfile, which the compose file and the Kubernetes manifests run)
// and the benchmarks' service (bench/child.ts), whose figures are meant to be the deployed service's.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const read = (relative: string) =>
  readFileSync(fileURLToPath(new URL(`../../${relative}`, import.meta.url)), 'utf8');
const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start;
const dockerfile = read('deploy/Dockerfile');
const bench = read('bench/child.ts');

const V8_FLAGS = ['--max-semi-space-size=64', '--initial-old-space-size=512', '--heap-growing-percent=15'];
const TUNABLE = 'glibc.malloc.hugetlb=1';

/** The flags of the `node` command in `npm start`: what follows `node` up to the script. */
function startFlags(): string[] {
  const words = start.split(/\s+/);
  const node = words.indexOf('node');
  return words.slice(node + 1).filter((w) => w.startsWith('--'));
}

/** The exec-form CMD of the Dockerfile, as its words. */
function dockerCmd(): string[] {
  const line = dockerfile.split('\n').find((l) => l.startsWith('CMD '));
  return JSON.parse(line!.slice(4)) as string[];
}

describe('runtime settings', () => {
  it('npm start, the image and the bench run node with the same heap flags', () => {
    expect(startFlags()).toEqual(V8_FLAGS);
    expect(dockerCmd().filter((w) => w.startsWith('--'))).toEqual(V8_FLAGS);
    for (const flag of V8_FLAGS) expect(bench).toContain(`'${flag}'`);
  });

  it('glibc maps with transparent huge pages everywhere, keeping tunables a user set for npm start', () => {
    // The assignment as npm runs it (sh), in front of a node that prints what it got.
    const assignment = start.split(/\s+/).find((w) => w.startsWith('GLIBC_TUNABLES='))!;
    const seen = (env: Record<string, string>) =>
      execFileSync('sh', ['-c', `${assignment} node -p process.env.GLIBC_TUNABLES`], {
        env: { PATH: process.env.PATH!, ...env },
        encoding: 'utf8',
      }).trim();
    expect(seen({})).toBe(TUNABLE);
    expect(seen({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })).toBe(`glibc.malloc.arena_max=2:${TUNABLE}`);
    expect(dockerfile).toMatch(new RegExp(`^ENV GLIBC_TUNABLES=${TUNABLE.replace(/\./g, '\\.')}$`, 'm'));
    expect(bench).toContain(`GLIBC_TUNABLES: process.env.BENCH_GLIBC_TUNABLES ?? '${TUNABLE}'`);
  });
});

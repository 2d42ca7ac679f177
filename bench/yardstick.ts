// The yardstick binary (../shared/bench/limit.cpp), built once and rebuilt whenever the source is newer:
// the shared limit changes over time (its path search is pruned since 2026-11-23), and a stale binary
// would give ratios against a limit that no longer holds.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

export function ensureYardstick(binary: string, source: string): string {
  if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs)
    execFileSync('g++', ['-O2', '-std=c++17', source, '-o', binary]);
  return binary;
}

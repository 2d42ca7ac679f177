// The routes a pull request opens or makes likelier, grouped by their fix: routes that one change cuts
// share one comment (on a demo estate two near-identical comments carried the same fix). Each group names
// what to change: the resources the routes come from (the Terraform address, the manifest object
// `Kind/namespace/name`, the package, the Dockerfile `FROM`, the code finding) and, where the pull
// request's files show it, `file:line`.
import { createHash } from 'node:crypto';
import type { GatePath, GateResult, GateViolation } from '../../src/gate/evaluate.js';
import type { CommitFiles, Located } from './locate.js';

export interface GroupedRoute {
  path: GatePath;
  status: 'opened' | 'worsened';
}

export interface FixGroup {
  /** `fix-<hex16>`: stable for the same fix text, the comment's subject */
  id: string;
  fix: string;
  /** worst first */
  routes: GroupedRoute[];
  critical: boolean;
  score: number;
  resources: Located[];
}

export interface ExposureItem {
  /** `exposed-<hex16>` */
  id: string;
  violation: GateViolation;
  resources: Located[];
}

const hex16 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** A comment id for an exposed crown jewel: stable per invariant and node. */
export const exposureId = (violationId: string): string => `exposed-${hex16(violationId)}`;

/** The routes of a result grouped by fix, worst group first (critical, then by score). */
export async function groupByFix(result: GateResult, files?: CommitFiles): Promise<FixGroup[]> {
  const routes: GroupedRoute[] = [
    ...result.opened.map((path) => ({ path, status: 'opened' as const })),
    ...result.worsened.map((path) => ({ path, status: 'worsened' as const })),
  ];
  const groups = new Map<string, FixGroup>();
  for (const route of routes) {
    const fix = route.path.fix || 'cut one of the hops this change adds or makes likelier';
    let group = groups.get(fix);
    if (!group)
      groups.set(
        fix,
        (group = { id: `fix-${hex16(fix)}`, fix, routes: [], critical: false, score: 0, resources: [] }),
      );
    group.routes.push(route);
    group.critical ||= route.path.critical;
    group.score = Math.max(group.score, route.path.score);
  }
  const ranked = [...groups.values()].sort(
    (a, b) => Number(b.critical) - Number(a.critical) || b.score - a.score,
  );
  for (const group of ranked) {
    group.routes.sort(
      (a, b) => Number(b.path.critical) - Number(a.path.critical) || b.path.score - a.path.score,
    );
    group.resources = await resourcesOf(
      group.routes.map((r) => r.path.origin),
      files,
    );
  }
  return ranked;
}

/** The crown jewels the change exposes, with where each is declared. */
export async function exposures(result: GateResult, files?: CommitFiles): Promise<ExposureItem[]> {
  const out: ExposureItem[] = [];
  for (const violation of result.exposed ?? [])
    out.push({
      id: exposureId(violation.id),
      violation,
      resources: await resourcesOf([violation.origin], files),
    });
  return out;
}

/** The routes' resources, each once; located in the commit's files when they are given. */
async function resourcesOf(
  origins: (GatePath['origin'] | undefined)[],
  files?: CommitFiles,
): Promise<Located[]> {
  const seen = new Map<string, Located>();
  for (const origin of origins) {
    if (!origin) continue;
    const found: Located[] = files
      ? await files.locate(origin)
      : [
          ...(origin.code
            ? [{ resource: origin.code.rule, path: origin.code.path, line: origin.code.line ?? 1 }]
            : []),
          ...(origin.terraform ?? []).map((resource) => ({ resource })),
          ...(origin.kubernetes ?? []).map((k) => ({
            resource: [k.kind ?? 'object', k.namespace, k.name].filter(Boolean).join('/'),
          })),
          ...(origin.package ? [{ resource: origin.package }] : []),
          ...(origin.images?.length ? [{ resource: 'the Dockerfile FROM' }] : []),
        ];
    for (const r of found) {
      const held = seen.get(r.resource);
      if (!held || (!held.path && r.path)) seen.set(r.resource, r);
    }
  }
  return [...seen.values()];
}

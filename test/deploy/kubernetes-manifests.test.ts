// The scale-out shape as plain Kubernetes manifests (deploy/kubernetes; no Helm chart: docs/operations.md says
// why), validated against Kubernetes' published OpenAPI schemas as kubernetes-models (pinned, 4.5.1) carries
// them; and checked for what the spec asks of the shape: replicas, a PDB, a NetworkPolicy, probes on
// /healthz, secrets by reference, settings that exist, and the public override lowering API_RATE_RPS to 10.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { SETTINGS_DOC } from '../../src/config/settings.js';

const DIR = fileURLToPath(new URL('../../deploy/kubernetes/', import.meta.url));

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [key: string]: any;
}

function documents(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0].message}`);
    return d.toJS() as Manifest;
  });
}

/** The base's resources, in the order its kustomization lists them. */
function base(): Manifest[] {
  const kustomization = documents(path.join(DIR, 'kustomization.yaml'))[0] as unknown as {
    resources: string[];
  };
  return kustomization.resources.flatMap((file) => documents(path.join(DIR, file)));
}

/** kubernetes-models' class for an object, found by apiVersion and kind (core `v1` lives in `v1/`). */
async function model(m: Manifest): Promise<new (data: object) => { validate(): void }> {
  const module = (await import(`kubernetes-models/${m.apiVersion}/${m.kind}`)) as Record<string, unknown>;
  const found = module[m.kind] ?? module.default;
  if (typeof found !== 'function') throw new Error(`kubernetes-models has no ${m.apiVersion} ${m.kind}`);
  return found as new (data: object) => { validate(): void };
}

const byKind = (all: Manifest[], kind: string) => all.filter((m) => m.kind === kind);

describe('deploy/kubernetes', () => {
  it('every object is valid against the Kubernetes OpenAPI schema of its kind', async () => {
    const all = base();
    expect(all.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([
      'ConfigMap/pathgate-settings',
      'NetworkPolicy/pathgate',
      'PodDisruptionBudget/pathgate',
      'Service/pathgate-api',
      'Service/pathgate-ingest',
      'Service/pathgate-replicas',
      'ServiceAccount/pathgate',
      'StatefulSet/pathgate',
    ]);
    for (const m of all) {
      const Model = await model(m);
      expect(() => new Model(m).validate(), `${m.kind}/${m.metadata.name}`).not.toThrow();
    }
  });

  it('the validator refuses what the API server would: the negative twin', async () => {
    const [set] = byKind(base(), 'StatefulSet');
    const Model = await model(set);
    const broken = structuredClone(set);
    broken.spec.replicas = 'three';
    expect(() => new Model(broken).validate()).toThrow(/replicas/);
    const noImage = structuredClone(set);
    noImage.spec.template.spec.containers[0].ports[0].containerPort = 'ingest';
    expect(() => new Model(noImage).validate()).toThrow(/containerPort/);
  });

  it('replicas, a PDB and a NetworkPolicy select the engine pods; probes ask /healthz on both listeners', () => {
    const all = base();
    const [set] = byKind(all, 'StatefulSet');
    const labels = set.spec.template.metadata.labels as Record<string, string>;
    const selects = (selector: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    expect(set.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(selects(set.spec.selector.matchLabels)).toBe(true);
    expect(selects(byKind(all, 'PodDisruptionBudget')[0].spec.selector.matchLabels)).toBe(true);
    expect(selects(byKind(all, 'NetworkPolicy')[0].spec.podSelector.matchLabels)).toBe(true);
    for (const service of byKind(all, 'Service')) expect(selects(service.spec.selector)).toBe(true);
    const [container] = set.spec.template.spec.containers;
    const ports = Object.fromEntries(
      (container.ports as { name: string; containerPort: number }[]).map((p) => [p.name, p.containerPort]),
    );
    const config = byKind(all, 'ConfigMap')[0].data as Record<string, string>;
    expect(config.API_ADDR).toBe(`:${ports.api}`);
    expect(config.INGEST_ADDR).toBe(`:${ports.ingest}`);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/healthz', port: 'api' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'ingest' });
    // Each replica its own consumer: the pod's name.
    const env = container.env as { name: string; value?: string; valueFrom?: any }[];
    expect(env.find((e) => e.name === 'BUS_CONSUMER')?.valueFrom).toEqual({
      fieldRef: { fieldPath: 'metadata.name' },
    });
  });

  it('names only settings pathgate reads, and takes every secret by reference', () => {
    const all = base();
    const known = new Set(SETTINGS_DOC.map((d) => d.name));
    const [set] = byKind(all, 'StatefulSet');
    const env = set.spec.template.spec.containers[0].env as {
      name: string;
      value?: string;
      valueFrom?: any;
    }[];
    const config = byKind(all, 'ConfigMap')[0].data as Record<string, string>;
    const overlay = documents(path.join(DIR, 'public', 'public-settings.yaml'))[0].data as Record<
      string,
      string
    >;
    for (const name of [...env.map((e) => e.name), ...Object.keys(config), ...Object.keys(overlay)]) {
      const setting = name.replace(/_FILE$/, '');
      expect(known.has(setting) || known.has(name), name).toBe(true);
    }
    const secret = /SECRET|TOKEN|KEY|DSN|BUS_URL|PASSWORD/;
    for (const name of Object.keys(config)) expect(secret.test(name), `${name} in the ConfigMap`).toBe(false);
    for (const e of env.filter((e) => secret.test(e.name)))
      expect(
        e.valueFrom?.secretKeyRef ?? (e.name.endsWith('_FILE') && e.value?.startsWith('/secrets/')),
        e.name,
      ).toBeTruthy();
  });

  it('the public override lowers API_RATE_RPS to 10 (spec "Limits") and opens anonymous reads, nothing else', () => {
    const kustomization = documents(path.join(DIR, 'public', 'kustomization.yaml'))[0] as unknown as {
      resources: string[];
      patches: { path: string }[];
    };
    expect(kustomization.resources).toEqual(['..']);
    const [patch] = kustomization.patches.map((p) => documents(path.join(DIR, 'public', p.path))[0]);
    expect(`${patch.kind}/${patch.metadata.name}`).toBe('ConfigMap/pathgate-settings');
    // A strategic merge patch of a ConfigMap merges `data` key by key.
    const config = byKind(base(), 'ConfigMap')[0];
    const merged = { ...config.data, ...patch.data } as Record<string, string>;
    expect(config.data.API_RATE_RPS).toBe('20');
    expect(merged.API_RATE_RPS).toBe('10');
    expect(merged.API_ANONYMOUS_ROLE).toBe('viewer');
    expect(Object.keys(patch.data).sort()).toEqual(['API_ANONYMOUS_ROLE', 'API_RATE_RPS']);
  });

  it('lists every file of the folder in its kustomization', () => {
    const listed = new Set(
      (documents(path.join(DIR, 'kustomization.yaml'))[0] as unknown as { resources: string[] }).resources,
    );
    const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect(files.sort()).toEqual([...listed].sort());
  });
});

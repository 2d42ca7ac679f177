// The secrets a Kubernetes workload is given (env, envFrom, secret and projected volumes), and the Secrets
// that hold a service account's token (`kubernetes.io/service-account-token`, the account named by the
// `kubernetes.io/service-account.name` annotation): a pod that mounts one holds that account's token, as if it
// ran as it (DECISIONS "Kubernetes, as the API server decides").
import { WORKLOAD_SECRET_PROBABILITY } from '../../model/probability.js';
import { CONTAINER_FIELDS } from '../../rules/k8s/pod-containers.js';
import type { EdgeOptions } from './envelope-builder.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects as the API returns them
type K8sObject = Record<string, any>;

/** The account whose token a Secret holds; undefined for any other Secret. */
export function tokenSecretAccount(o: K8sObject): string | undefined {
  if (o.type !== 'kubernetes.io/service-account-token') return undefined;
  const name = o.metadata?.annotations?.['kubernetes.io/service-account.name'];
  return typeof name === 'string' && name ? name : undefined;
}

/** A workload ASSUMES the account whose token Secret it mounts: as easy as its own mounted token. */
export const TOKEN_SECRET: EdgeOptions = Object.freeze({
  exploit_probability: WORKLOAD_SECRET_PROBABILITY,
  weight_basis: 'heuristic',
  properties: Object.freeze({ via: 'service-account token secret' }),
  handOver: true,
});

/**
 * The secrets a workload's pod specs hand their containers, with how; undefined when none (most pods:
 * no Map, closure or list is made for them).
 */
export function secretsRead(specs: K8sObject[]): Map<string, Set<string>> | undefined {
  let out: Map<string, Set<string>> | undefined;
  for (const spec of specs) {
    for (const field of CONTAINER_FIELDS) out = containerSecrets(out, spec[field]);
    if (!Array.isArray(spec.volumes)) continue;
    for (const volume of spec.volumes) {
      out = addSecret(out, volume?.secret?.secretName, 'volume');
      const sources = volume?.projected?.sources;
      if (Array.isArray(sources))
        for (const source of sources) out = addSecret(out, source?.secret?.name, 'volume');
    }
  }
  return out;
}

function containerSecrets(
  out: Map<string, Set<string>> | undefined,
  containers: unknown,
): Map<string, Set<string>> | undefined {
  if (!Array.isArray(containers)) return out;
  for (const c of containers) {
    if (Array.isArray(c?.env))
      for (const env of c.env)
        if (env?.valueFrom) out = addSecret(out, env.valueFrom.secretKeyRef?.name, 'env');
    if (Array.isArray(c?.envFrom))
      for (const from of c.envFrom) out = addSecret(out, from?.secretRef?.name, 'envFrom');
  }
  return out;
}

function addSecret(
  out: Map<string, Set<string>> | undefined,
  secret: unknown,
  via: string,
): Map<string, Set<string>> | undefined {
  if (typeof secret !== 'string' || !secret) return out;
  out ??= new Map();
  let ways = out.get(secret);
  if (!ways) out.set(secret, (ways = new Set()));
  ways.add(via);
  return out;
}

// How a Service is exposed: the workloads its selector picks, the annotations that make a LoadBalancer
// internal, the client ranges it admits.
import type { K8sObject } from './dump.js';

/** Whether a Service selector matches one of a workload's label sets (every pair equal). */
export function selects(selector: [string, string][], labelSets: Record<string, string>[]): boolean {
  for (const labels of labelSets) {
    let all = true;
    // Indexed, not destructured: `[key, value]` of each pair went through the iterator protocol (a result
    // object per pair, 300,000 pairs on issue 14's dump).
    for (let i = 0; i < selector.length; i++) {
      if (labels[selector[i][0]] !== selector[i][1]) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

/**
 * The annotations by which a cloud's controller makes a LoadBalancer Service an internal (VPC-only) load
 * balancer, with the values that mean it (compared case-insensitively).
 */
const INTERNAL_LB_ANNOTATIONS: Record<string, readonly string[]> = {
  'service.beta.kubernetes.io/aws-load-balancer-internal': ['true', '0.0.0.0/0'],
  'service.beta.kubernetes.io/aws-load-balancer-scheme': ['internal'],
  'networking.gke.io/load-balancer-type': ['internal'],
  'cloud.google.com/load-balancer-type': ['internal'],
  'service.beta.kubernetes.io/azure-load-balancer-internal': ['true'],
  'service.beta.kubernetes.io/oci-load-balancer-internal': ['true'],
  'service.kubernetes.io/ibm-load-balancer-cloud-provider-ip-type': ['private'],
};

/** The annotation that makes a LoadBalancer Service internal, when it has one (no internet start then). */
export function internalLoadBalancer(annotations: unknown): string | undefined {
  if (!annotations || typeof annotations !== 'object') return undefined;
  for (const [key, values] of Object.entries(INTERNAL_LB_ANNOTATIONS)) {
    const value = (annotations as Record<string, unknown>)[key];
    if (typeof value === 'string' && values.includes(value.trim().toLowerCase())) return key;
  }
  return undefined;
}

/**
 * The client ranges a LoadBalancer Service admits (`spec.loadBalancerSourceRanges`, else the older
 * `service.beta.kubernetes.io/load-balancer-source-ranges` annotation, comma-separated); undefined when it
 * names none (every client).
 */
export function sourceRanges(o: K8sObject): string[] | undefined {
  const spec: unknown = o.spec?.loadBalancerSourceRanges;
  const annotation: unknown =
    o.metadata?.annotations?.['service.beta.kubernetes.io/load-balancer-source-ranges'];
  const ranges = (Array.isArray(spec) ? spec : typeof annotation === 'string' ? annotation.split(',') : [])
    .filter((r): r is string => typeof r === 'string')
    .map((r) => r.trim())
    .filter(Boolean);
  return ranges.length ? ranges : undefined;
}

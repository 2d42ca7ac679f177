// A cluster's findings mapped (a `trivy k8s` report's, or Trivy Operator's reports', as trivy-k8s.ts and
// trivy-operator.ts read them): each image as an image scan, each object's failed manifest checks on the
// node the k8s source draws for it, in `?cluster=`. Partial.
import { EnvelopeBuilder } from '../envelope-builder.js';
import { clusterOf, objectNode } from '../k8s.js';
import type { IngestSource } from '../source.js';
import {
  CLUSTER_LISTS,
  readClusterReport,
  type ClusterReading,
  type TrivyClusterReport,
} from '../trivy-k8s.js';
import { addMisconfigurations, failed } from './findings.js';
import { mapImage } from './image-scan.js';
import type { TrivyReport } from './report-shape.js';

/**
 * A `trivy k8s` report (trivy-k8s.ts): each image an object runs is mapped as an image scan of that image,
 * named by the same rules (so the k8s dump's workloads join it); each failed check of an object's manifest
 * is a Misconfiguration that AFFECTS the node the k8s source draws for that object, in the cluster
 * `?cluster=` names (as for the dump: the report's own ClusterName is a kubeconfig's, often an ARN). Not
 * complete for any scope: the report does not say which namespaces it covers.
 */
export function normalizeCluster(
  report: TrivyClusterReport,
  query: Record<string, string | undefined>,
  receivedAt: string,
): ReturnType<IngestSource['normalize']> {
  const output = mapClusterReading(readClusterReport(report), query, receivedAt, 'trivy k8s report');
  if (!CLUSTER_LISTS.some((list) => report[list]?.length))
    output.warnings.push(
      `trivy k8s report of cluster ${JSON.stringify(report.ClusterName)} lists no object (no Resources, ` +
        'Findings, Vulnerabilities or Misconfigurations): nothing to map',
    );
  return output;
}

/**
 * A cluster's image scans and manifest findings (a `trivy k8s` report's, or Trivy Operator's reports'):
 * each image as a `trivy image` scan of its reference, each object's failed checks on the node the k8s
 * source draws for it, named in `?cluster=` as the dump is. Partial: neither says what it left out.
 */
export function mapClusterReading(
  reading: ClusterReading,
  query: Record<string, string | undefined>,
  receivedAt: string,
  what: string,
): ReturnType<IngestSource['normalize']> & { warnings: string[] } {
  const cluster = clusterOf(query);
  const { images, objects, warnings } = reading;
  const out = new EnvelopeBuilder('trivy', 'finding', receivedAt);
  const mentioned = new Set<string>();
  for (const scan of images) {
    const scanned: TrivyReport = {
      SchemaVersion: 2,
      ArtifactName: scan.ref,
      ArtifactType: 'container_image',
      Metadata: scan.metadata,
      Results: scan.results,
    };
    for (const cve of mapImage(out, scanned, warnings, scan.pointers).cves) mentioned.add(cve);
  }
  const notDrawn = new Map<string, number>();
  for (const o of objects) {
    if (!o.results.some((r) => r.Misconfigurations?.some(failed))) continue;
    const node = objectNode(o.kind, o.namespace, o.name);
    if (!node) {
      notDrawn.set(o.kind, (notDrawn.get(o.kind) ?? 0) + 1);
      continue;
    }
    const name = cluster ? `${cluster}/${node.name}` : node.name;
    // Named, not described: the dump describes the object (a workload's kind, images, pods).
    const id = out.node(node.label, name, { cluster, namespace: o.namespace || undefined });
    mentioned.add(id);
    for (const [i, result] of o.results.entries())
      addMisconfigurations(out, id, name, result, o.pointers[i], warnings);
  }
  if (notDrawn.size)
    warnings.push(
      `${what}: misconfigurations of kinds the k8s source draws no node for, not mapped: ${[...notDrawn]
        .map(([kind, n]) => `${kind} (${n})`)
        .join(', ')}`,
    );
  return { envelopes: [out.build()], warnings, mentioned: [...mentioned] };
}

// Trivy Operator's reports, read for the trivy source (trivy.ts maps what this returns, as it maps a `trivy
// k8s` report). The operator scans a cluster from inside and keeps its findings as custom resources
// (`aquasecurity.github.io/v1alpha1`), which `kubectl get vulnerabilityreports,exposedsecretreports,
// configauditreports -A -o json` lists: a VulnerabilityReport or an ExposedSecretReport is the scan of one
// container's image (`report.registry.server` / `report.artifact.repository`, `tag` or `digest`), a
// ConfigAuditReport or an RbacAssessmentReport the checks of one object's manifest (named by the
// `trivy-operator.resource.*` labels). They become what a `trivy k8s` report's image scans and manifest
// findings become: an image whose CVEs price the hop into the workloads a dump says run it, and failed checks
// on the object's node. The other kinds (compliance, infra assessment, SBOM reports) are counted in a warning.
import { parseImageRef } from '../../identity/image-ref.js';
import type { FieldError } from '../envelope.js';
import { controllerOfReplicaSet } from './k8s.js';
import type { ClusterReading } from './trivy-k8s.js';
import type { TrivyResult } from './trivy/report-shape.js';

export const OPERATOR_API_GROUP = 'aquasecurity.github.io/';

/** The kinds the operator writes (trivy-operator's CRDs), read or not. */
const OPERATOR_KINDS = new Set([
  'VulnerabilityReport',
  'ClusterVulnerabilityReport',
  'ExposedSecretReport',
  'ConfigAuditReport',
  'ClusterConfigAuditReport',
  'RbacAssessmentReport',
  'ClusterRbacAssessmentReport',
  'InfraAssessmentReport',
  'ClusterInfraAssessmentReport',
  'ClusterComplianceReport',
  'SbomReport',
  'ClusterSbomReport',
]);

const IMAGE_KINDS = new Set(['VulnerabilityReport', 'ClusterVulnerabilityReport', 'ExposedSecretReport']);
const CHECK_KINDS = new Set([
  'ConfigAuditReport',
  'ClusterConfigAuditReport',
  'RbacAssessmentReport',
  'ClusterRbacAssessmentReport',
]);

const RESOURCE_KIND = 'trivy-operator.resource.kind';
const RESOURCE_NAME = 'trivy-operator.resource.name';
const RESOURCE_NAMESPACE = 'trivy-operator.resource.namespace';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a Kubernetes object is one of Trivy Operator's reports. */
export function isTrivyOperatorReport(value: unknown): boolean {
  return (
    isObject(value) &&
    typeof value.apiVersion === 'string' &&
    value.apiVersion.startsWith(OPERATOR_API_GROUP) &&
    typeof value.kind === 'string' &&
    OPERATOR_KINDS.has(value.kind)
  );
}

/**
 * Whether a body is Trivy Operator's reports alone: one report, a List (`kubectl get ... -o json`) or a bare
 * list of nothing else. A dump that mixes them with workloads is the k8s source's.
 */
export function looksLikeOperatorReports(body: unknown): boolean {
  if (isTrivyOperatorReport(body)) return true;
  // `kubectl ... -o json | jq .items`: the List's items alone.
  if (Array.isArray(body)) return body.length > 0 && body.every(isTrivyOperatorReport);
  if (!isObject(body) || typeof body.kind !== 'string' || !body.kind.endsWith('List')) return false;
  const items = body.items;
  return Array.isArray(items) && items.length > 0 && items.every(isTrivyOperatorReport);
}

interface OperatorVulnerability {
  vulnerabilityID?: unknown;
  resource?: unknown;
  installedVersion?: unknown;
  fixedVersion?: unknown;
  severity?: unknown;
  score?: unknown;
  title?: unknown;
  primaryLink?: unknown;
  target?: unknown;
  pkgPath?: unknown;
  pkgPURL?: unknown;
  packageType?: unknown;
  class?: unknown;
  publishedDate?: unknown;
  lastModifiedDate?: unknown;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The reports' image scans and manifest checks, in the shapes a `trivy k8s` report gives (trivy-k8s.ts),
 * with their JSON pointers; malformed fields are errors naming their pointer.
 */
export function readOperatorReports(body: unknown): ClusterReading & { errors: FieldError[] } {
  const reading: ClusterReading & { errors: FieldError[] } = {
    images: [],
    objects: [],
    warnings: [],
    errors: [],
  };
  const reports = isTrivyOperatorReport(body)
    ? [{ report: body as Record<string, unknown>, at: '' }]
    : Array.isArray(body)
      ? (body as Record<string, unknown>[]).map((report, i) => ({ report, at: `/${i}` }))
      : ((body as { items: Record<string, unknown>[] }).items ?? []).map((report, i) => ({
          report,
          at: `/items/${i}`,
        }));
  const notRead = new Map<string, number>();
  const unnamed: string[] = [];
  for (const { report, at } of reports) {
    const kind = report.kind as string;
    const content = report.report;
    if (!isObject(content)) {
      reading.errors.push({ pointer: `${at}/report`, value: content, detail: 'expected an object' });
      continue;
    }
    if (IMAGE_KINDS.has(kind)) {
      const ref = imageOf(content);
      if (!ref) {
        unnamed.push(`${kind} ${describe(report)}`);
        continue;
      }
      const results = imageResults(kind, ref, content, `${at}/report`, reading.errors);
      const pointers = results.map(() => `${at}/report`);
      // A container's VulnerabilityReport and ExposedSecretReport are one scan of its image.
      const scan = reading.images.find((s) => s.ref === ref);
      if (scan) {
        scan.results.push(...results);
        scan.pointers.push(...pointers);
      } else reading.images.push({ ref, results, pointers });
    } else if (CHECK_KINDS.has(kind)) {
      const object = objectOf(report);
      if (!object) {
        unnamed.push(`${kind} ${describe(report)}`);
        continue;
      }
      const result = checksResult(object, content, `${at}/report/checks`, reading.errors);
      if (result) reading.objects.push({ ...object, results: [result], pointers: [`${at}/report/checks`] });
    } else notRead.set(kind, (notRead.get(kind) ?? 0) + 1);
  }
  if (notRead.size)
    reading.warnings.push(
      `Trivy Operator reports of kinds not mapped: ${[...notRead].map(([k, n]) => `${k} (${n})`).join(', ')}`,
    );
  if (unnamed.length)
    reading.warnings.push(
      `Trivy Operator reports naming no image or object, not mapped: ${unnamed.slice(0, 10).join(', ')}` +
        (unnamed.length > 10 ? ` and ${unnamed.length - 10} more` : ''),
    );
  return reading;
}

function describe(report: Record<string, unknown>): string {
  const metadata = isObject(report.metadata) ? report.metadata : {};
  return `${text(metadata.namespace) ? `${String(metadata.namespace)}/` : ''}${text(metadata.name) ?? '(no name)'}`;
}

/** The image a report scanned, as a reference: `<server>/<repository>:<tag>` or `@<digest>`. */
function imageOf(content: Record<string, unknown>): string | undefined {
  const artifact = isObject(content.artifact) ? content.artifact : {};
  const registry = isObject(content.registry) ? content.registry : {};
  const repository = text(artifact.repository);
  if (!repository) return undefined;
  const server = text(registry.server);
  const digest = text(artifact.digest);
  const tag = text(artifact.tag);
  const name = server ? `${server}/${repository}` : repository;
  // A digest pins the image a tag only pointed at when it was scanned; both are kept when both are given.
  const ref =
    tag && digest ? `${name}:${tag}@${digest}` : digest ? `${name}@${digest}` : `${name}:${tag ?? 'latest'}`;
  return parseImageRef(ref) ? ref : undefined;
}

/** The object a check report is about, from the operator's labels; a ReplicaSet is its Deployment's. */
function objectOf(
  report: Record<string, unknown>,
): { kind: string; namespace: string; name: string } | undefined {
  const metadata = isObject(report.metadata) ? report.metadata : {};
  const labels = isObject(metadata.labels) ? metadata.labels : {};
  let kind = text(labels[RESOURCE_KIND]);
  let name = text(labels[RESOURCE_NAME]);
  if (!kind || !name) return undefined;
  if (kind === 'ReplicaSet') {
    const deployment = controllerOfReplicaSet(name);
    if (deployment) [kind, name] = ['Deployment', deployment];
  }
  return { kind, namespace: text(labels[RESOURCE_NAMESPACE]) ?? '', name };
}

function imageResults(
  kind: string,
  ref: string,
  content: Record<string, unknown>,
  at: string,
  errors: FieldError[],
): TrivyResult[] {
  if (kind === 'ExposedSecretReport') {
    // One result per file, as `trivy image` writes secrets (Target: the file's path in the image).
    const byFile = new Map<string, TrivyResult>();
    for (const [i, s] of listAt(content, 'secrets', at, errors).entries()) {
      const ruleID = text(s.ruleID);
      if (!ruleID) {
        errors.push({ pointer: `${at}/secrets/${i}/ruleID`, value: s.ruleID, detail: 'expected a string' });
        continue;
      }
      const file = text(s.target) ?? ref;
      let result = byFile.get(file);
      if (!result) byFile.set(file, (result = { Target: file, Class: 'secret', Secrets: [] }));
      // Never the match: it quotes the secret (the operator masks it, not always wholly).
      result.Secrets!.push({
        RuleID: ruleID,
        Category: text(s.category),
        Severity: text(s.severity),
        Title: text(s.title),
      });
    }
    return [...byFile.values()];
  }
  const vulnerabilities = listAt(content, 'vulnerabilities', at, errors) as OperatorVulnerability[];
  const os = isObject(content.os) ? content.os : {};
  return [
    {
      Target: text(os.family) ? `${ref} (${String(os.family)} ${text(os.name) ?? ''})`.trim() : ref,
      Class: 'os-pkgs',
      Vulnerabilities: vulnerabilities.flatMap((v, i) => {
        const id = text(v.vulnerabilityID);
        if (!id) {
          errors.push({
            pointer: `${at}/vulnerabilities/${i}/vulnerabilityID`,
            value: v.vulnerabilityID,
            detail: 'expected a vulnerability id',
          });
          return [];
        }
        const score = typeof v.score === 'number' && v.score > 0 && v.score <= 10 ? v.score : undefined;
        return [
          {
            VulnerabilityID: id,
            PkgName: text(v.resource),
            PkgPath: text(v.pkgPath),
            PkgIdentifier: text(v.pkgPURL) ? { PURL: String(v.pkgPURL) } : undefined,
            InstalledVersion: text(v.installedVersion),
            FixedVersion: text(v.fixedVersion),
            Severity: text(v.severity),
            Title: text(v.title),
            PrimaryURL: text(v.primaryLink),
            PublishedDate: text(v.publishedDate),
            LastModifiedDate: text(v.lastModifiedDate),
            // The operator keeps one score, the CVSS v3 base score of the source Trivy preferred.
            CVSS: score === undefined ? undefined : { 'trivy-operator': { V3Score: score } },
          },
        ];
      }),
    },
  ];
}

function checksResult(
  object: { kind: string; name: string },
  content: Record<string, unknown>,
  at: string,
  errors: FieldError[],
): TrivyResult | undefined {
  const checks = listAt(content, 'checks', at.slice(0, -'/checks'.length), errors);
  return {
    Target: `${object.kind}/${object.name}`,
    Class: 'config',
    Type: 'kubernetes',
    Misconfigurations: checks.flatMap((c, i) => {
      const id = text(c.checkID);
      if (!id) {
        errors.push({ pointer: `${at}/${i}/checkID`, value: c.checkID, detail: 'expected a check id' });
        return [];
      }
      const messages = Array.isArray(c.messages) ? c.messages.filter((m) => typeof m === 'string') : [];
      return [
        {
          ID: id,
          Title: text(c.title),
          Message: messages.length ? messages.join('; ') : text(c.description),
          Resolution: text(c.remediation),
          Severity: text(c.severity),
          // `success: true` is a check that passed; the operator lists those only when asked.
          Status: c.success === true ? 'PASS' : 'FAIL',
        },
      ];
    }),
  };
}

/** `content[field]` as a list of objects (absent or null: none); anything else is an error at its pointer. */
function listAt(
  content: Record<string, unknown>,
  field: string,
  at: string,
  errors: FieldError[],
): Record<string, unknown>[] {
  const value = content[field];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.push({ pointer: `${at}/${field}`, value, detail: 'expected a list' });
    return [];
  }
  return value.flatMap((item, i) => {
    if (isObject(item)) return [item];
    errors.push({ pointer: `${at}/${field}/${i}`, value: item, detail: 'expected an object' });
    return [];
  });
}

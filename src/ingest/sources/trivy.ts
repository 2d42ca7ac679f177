// Source `trivy`: a Trivy JSON report (SchemaVersion 2) of a container image. The image is named as the spec
// says (docs/identity.md): a registry scan by its reference, an archive scan by `Metadata.Reference` or its
// first tag, an archive saved by image ID by its path (with `name_note`, joining nothing). Each
// vulnerability is a CVE node that AFFECTS the image; language packages (jar, npm, pip, gobinary, ...) are
// Library nodes the image DEPENDS_ON, and their CVEs AFFECT them too. Secrets and failed misconfiguration
// checks Trivy found in the image become Secret and Misconfiguration nodes. A scan by reference is complete
// for its image: the next one retracts the CVEs and libraries it no longer lists. A `trivy fs` / `trivy repo`
// report (ArtifactType `filesystem`, `repository`) describes a Repository instead (DECISIONS "Code to
// cloud"): named from its URL (`github.com/<owner>/<repo>`) or, for a local path, from `?repo=`; it
// DEPENDS_ON its libraries, and its secrets and misconfigurations AFFECT it. Complete per repository. A
// `trivy k8s` report (a `ClusterName`, trivy-k8s.ts) holds image scans, mapped as above, and each object's
// manifest checks, which AFFECT the node the k8s source draws for the object (in `?cluster=`); partial.
// A `trivy sbom` report (ArtifactType `cyclonedx`, `spdx`) is a scan of what the SBOM describes: the image
// it names (or `?image=`), or `?repo=`'s repository; complete for that subject as an SBOM scan.
// A misconfiguration is named by its canonical check id, whichever Trivy version wrote it (check-id.ts).
import { ProblemError } from '../../http/problems.js';
import { MAX_REPORTED_ERRORS } from '../envelope.js';
import { canonicalCheckId } from '../../identity/check-id.js';
import { isImageId, parseImageRef, type ImageRef } from '../../identity/image-ref.js';
import { packageRef } from '../../identity/package-ref.js';
import { repositoryFromUrl } from '../../identity/repository-name.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { clusterOf, objectNode } from './k8s.js';
import { reportProblem, reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';
import {
  CLUSTER_LISTS,
  looksLikeClusterReport,
  readClusterReport,
  type ClusterReading,
  type TrivyClusterReport,
} from './trivy-k8s.js';
import { looksLikeOperatorReports, readOperatorReports } from './trivy-operator.js';

interface TrivyReport {
  SchemaVersion: number;
  CreatedAt?: string;
  ArtifactName: string;
  ArtifactType?: string;
  Trivy?: { Version?: string };
  Metadata?: TrivyMetadata;
  Results?: TrivyResult[];
}

export interface TrivyMetadata {
  OS?: { Family?: string; Name?: string; EOSL?: boolean };
  ImageID?: string;
  RepoTags?: string[] | null;
  RepoDigests?: string[] | null;
  Reference?: string;
  RepoURL?: string;
  Branch?: string;
  Commit?: string;
}

export interface TrivyResult {
  Target: string;
  Class?: string;
  Type?: string;
  Packages?: TrivyPackage[];
  Vulnerabilities?: TrivyVulnerability[];
  Secrets?: TrivySecret[];
  Misconfigurations?: TrivyMisconfiguration[];
}

interface TrivyPackage {
  ID?: string;
  Name: string;
  Version?: string;
  Identifier?: { PURL?: string };
  Relationship?: string;
  FilePath?: string;
}

interface CvssEntry {
  V2Vector?: string;
  V3Vector?: string;
  V40Vector?: string;
  V2Score?: number;
  V3Score?: number;
  V40Score?: number;
}

interface TrivyVulnerability {
  VulnerabilityID: string;
  PkgID?: string;
  PkgName?: string;
  PkgPath?: string;
  PkgIdentifier?: { PURL?: string };
  InstalledVersion?: string;
  FixedVersion?: string;
  Status?: string;
  SeveritySource?: string;
  PrimaryURL?: string;
  Title?: string;
  Severity?: string;
  CweIDs?: string[];
  CVSS?: Record<string, CvssEntry>;
  PublishedDate?: string;
  LastModifiedDate?: string;
}

interface TrivySecret {
  RuleID: string;
  Category?: string;
  Severity?: string;
  Title?: string;
  StartLine?: number;
}

interface TrivyMisconfiguration {
  ID?: string;
  AVDID?: string;
  Title?: string;
  Message?: string;
  Resolution?: string;
  Severity?: string;
  PrimaryURL?: string;
  Status?: string;
}

const SEVERITY = { type: 'string' };
/** The ArtifactType of a `trivy sbom` run, by the SBOM's format. */
const SBOM_FORMATS = new Set(['cyclonedx', 'spdx']);
const CVSS_SCORE = { type: 'number', minimum: 0, maximum: 10 };

const METADATA_PROPERTIES = {
  ImageID: { type: 'string' },
  RepoTags: { type: ['array', 'null'], items: { type: 'string' } },
  RepoDigests: { type: ['array', 'null'], items: { type: 'string' } },
  Reference: { type: 'string' },
};
const METADATA = { type: 'object', properties: METADATA_PROPERTIES };

const RESULTS = {
  type: ['array', 'null'],
  items: {
    type: 'object',
    required: ['Target'],
    properties: {
      Target: { type: 'string' },
      Class: { type: 'string' },
      Type: { type: 'string' },
      Packages: {
        type: ['array', 'null'],
        items: { type: 'object', required: ['Name'], properties: { Name: { type: 'string' } } },
      },
      Vulnerabilities: {
        type: ['array', 'null'],
        items: {
          type: 'object',
          required: ['VulnerabilityID'],
          properties: {
            VulnerabilityID: { type: 'string', minLength: 1 },
            PkgName: { type: 'string' },
            Severity: SEVERITY,
            CweIDs: { type: ['array', 'null'], items: { type: 'string' } },
            CVSS: {
              type: 'object',
              additionalProperties: {
                type: 'object',
                // A score outside CVSS's range is refused (docs/errors.md), not used to price a hop.
                properties: { V2Score: CVSS_SCORE, V3Score: CVSS_SCORE, V40Score: CVSS_SCORE },
              },
            },
          },
        },
      },
      Secrets: {
        type: ['array', 'null'],
        items: { type: 'object', required: ['RuleID'], properties: { RuleID: { type: 'string' } } },
      },
      Misconfigurations: { type: ['array', 'null'], items: { type: 'object' } },
    },
  },
};

/** One object's entry of a `trivy k8s` report (trivy-k8s.ts): its image's metadata, one or a list of them. */
const CLUSTER_RESOURCES = {
  type: ['array', 'null'],
  items: {
    type: 'object',
    required: ['Kind', 'Name'],
    properties: {
      Namespace: { type: 'string' },
      Kind: { type: 'string', minLength: 1 },
      Name: { type: 'string', minLength: 1 },
      Metadata: { type: ['object', 'array', 'null'], properties: METADATA_PROPERTIES, items: METADATA },
      Results: RESULTS,
      Error: { type: 'string' },
    },
  },
};

export function createTrivySource(): IngestSource {
  const check = reportSchema<TrivyReport>('trivy', {
    type: 'object',
    required: ['SchemaVersion', 'ArtifactName'],
    properties: {
      SchemaVersion: { const: 2 },
      ArtifactName: { type: 'string' },
      ArtifactType: { type: 'string' },
      CreatedAt: { type: 'string' },
      Metadata: METADATA,
      Results: RESULTS,
    },
  });
  const checkCluster = reportSchema<TrivyClusterReport>('trivy', {
    type: 'object',
    required: ['ClusterName'],
    properties: {
      ClusterName: { type: 'string' },
      SchemaVersion: { type: 'number' },
      ...Object.fromEntries(CLUSTER_LISTS.map((list) => [list, CLUSTER_RESOURCES])),
    },
  });
  return {
    name: 'trivy',
    version: '2',
    description:
      "Trivy JSON (SchemaVersion 2): image scans (Image, CVE AFFECTS Image, Image DEPENDS_ON Library; complete per image), fs/repo scans (Repository DEPENDS_ON Library; complete per repository), `trivy sbom` scans (of the image or repository the SBOM describes) and `trivy k8s` reports (the images of a cluster's workloads, their manifests' misconfigurations; partial).",
    snapshots: 'self',
    normalize({ body, query, receivedAt }) {
      if (isLegacyTrivyReport(body)) {
        throw reportProblem('trivy', [
          {
            pointer: '/',
            detail:
              'a bare list of results with no SchemaVersion: the JSON of Trivy 0.19 or older, which names no ' +
              'scanned image or repository; rescan with Trivy 0.20 or later (`trivy image -f json`, SchemaVersion 2)',
          },
        ]);
      }
      if (looksLikeClusterReport(body)) return normalizeCluster(checkCluster(body), query, receivedAt);
      if (looksLikeOperatorReports(body)) {
        const reading = readOperatorReports(body);
        if (reading.errors.length) throw reportProblem('trivy', reading.errors.slice(0, MAX_REPORTED_ERRORS));
        return mapClusterReading(reading, query, receivedAt, 'Trivy Operator reports');
      }
      const report = check(body);
      if (report.ArtifactType === 'filesystem' || report.ArtifactType === 'repository')
        return normalizeRepository(report, query, receivedAt);
      if (report.ArtifactType !== undefined && SBOM_FORMATS.has(report.ArtifactType))
        return normalizeSbomScan(report, query, receivedAt);
      if (report.ArtifactType !== undefined && report.ArtifactType !== 'container_image') {
        throw reportProblem('trivy', [
          {
            pointer: '/ArtifactType',
            value: report.ArtifactType,
            detail:
              'not a scan pathgate reads: `trivy image` (container_image), `trivy fs` (filesystem), `trivy repo` (repository) or `trivy sbom` (cyclonedx, spdx)',
          },
        ]);
      }
      const out = new EnvelopeBuilder('trivy', 'finding', receivedAt);
      const warnings: string[] = [];
      const { image, cves } = mapImage(out, report, warnings);
      if (image.note) warnings.push(`trivy report: ${image.note}`);
      // CVE nodes are shared by every image they affect: a pull-request stamp belongs on the image only.
      return { envelopes: [out.build()], warnings, scope: image.scope, mentioned: cves };
    },
  };
}

/**
 * A container image scan into `out`: the image, named as the spec says, its libraries, the CVEs affecting
 * them, its secrets and failed checks. `pointers`: each result's JSON pointer (a cluster report's differ).
 * Returns the image's name and the CVEs it mentions.
 */
function mapImage(
  out: EnvelopeBuilder,
  report: TrivyReport,
  warnings: string[],
  pointers?: string[],
): { image: ImageName; cves: string[] } {
  const image = nameImage(report);
  const metadata = report.Metadata ?? {};
  const results = report.Results ?? [];
  // A scan for secrets or misconfigurations alone (`--scanners secret`, an operator's ExposedSecretReport)
  // looked for no vulnerability: no count, so the image is not priced as scanned clean.
  const vulnerabilities =
    results.length > 0 && results.every((r) => r.Class === 'secret' || r.Class === 'config')
      ? undefined
      : results.reduce((n, r) => n + (r.Vulnerabilities?.length ?? 0), 0);
  const os = metadata.OS?.Family ? `${metadata.OS.Family} ${metadata.OS.Name ?? ''}`.trim() : undefined;
  const imageId = out.node('Image', image.name, {
    image_ref: image.ref?.raw ?? report.ArtifactName,
    registry: image.ref?.registry,
    repo_tags: nonEmpty(metadata.RepoTags),
    digests: image.digests.length ? image.digests : undefined,
    image_id: metadata.ImageID,
    name_note: image.note,
    os,
    os_eosl: metadata.OS?.EOSL,
    scanner: 'trivy',
    scanner_version: report.Trivy?.Version,
    scanned_at: report.CreatedAt,
    vulnerability_count: vulnerabilities,
  });
  // The packages each CVE was found in: one image, one CVE, possibly several packages.
  const packagesOf = new Map<string, Set<string>>();
  for (const [index, result] of results.entries()) {
    const libraries = result.Class === 'lang-pkgs' ? addLibraries(out, imageId, result) : new Map();
    for (const vulnerability of result.Vulnerabilities ?? []) {
      const cve = addVulnerability(out, imageId, result, vulnerability);
      let packages = packagesOf.get(cve);
      if (!packages) packagesOf.set(cve, (packages = new Set()));
      if (vulnerability.PkgName) packages.add(vulnerability.PkgName);
      const library = libraryFor(vulnerability, result, libraries);
      if (library) addAffectedLibrary(out, imageId, result, library, cve, vulnerability);
    }
    for (const secret of result.Secrets ?? []) addSecret(out, imageId, image.name, result, secret);
    const pointer = pointers?.[index] ?? `/Results/${index}`;
    addMisconfigurations(out, imageId, image.name, result, pointer, warnings);
  }
  for (const [cve, packages] of packagesOf) {
    if (packages.size > 1) out.edge('AFFECTS', cve, imageId, { properties: { packages: [...packages] } });
  }
  return { image, cves: [...packagesOf.keys()] };
}

export interface ImageName {
  name: string;
  ref?: ImageRef;
  digests: string[];
  /** Set when the image cannot be joined to anything (archive saved by image ID). */
  note?: string;
  scope?: string;
}

/**
 * The spec's naming of the scanned image; see docs/identity.md. Shared with the grype source, which passes
 * its `userInput` as ArtifactName so that both scanners name one image alike.
 */
export function nameImage(report: Pick<TrivyReport, 'ArtifactName' | 'Metadata' | 'Results'>): ImageName {
  const artifact = report.ArtifactName.trim();
  const metadata = report.Metadata ?? {};
  if (!artifact) {
    const target = report.Results?.find((r) => r.Target.trim())?.Target.replace(/\s+\(.*\)$/, '');
    throw reportProblem('trivy', [
      {
        pointer: '/ArtifactName',
        value: report.ArtifactName,
        detail:
          'empty: the report does not say which image was scanned' +
          (target ? ` (its first target is "${target}"; scan the image by that reference)` : ''),
      },
    ]);
  }
  const digests = [...new Set(nonEmpty(metadata.RepoDigests)?.flatMap(digestOf) ?? [])];
  if (!isArchive(artifact) && !isImageId(artifact)) {
    const ref = parseImageRef(artifact);
    if (!ref) {
      throw reportProblem('trivy', [
        {
          pointer: '/ArtifactName',
          value: report.ArtifactName,
          detail:
            'neither an image reference (registry/name:tag or name@sha256:...) nor an image archive path',
        },
      ]);
    }
    if (ref.digest && !digests.includes(ref.digest)) digests.push(ref.digest);
    return { name: ref.canonical, ref, digests, scope: `image:${ref.canonical}` };
  }
  // An archive (or an image given by ID): the reference it was saved under, if it has one.
  const tagged = [metadata.Reference, ...(nonEmpty(metadata.RepoTags) ?? [])]
    .filter((r): r is string => typeof r === 'string' && r.trim() !== '' && !isImageId(r))
    .map((r) => parseImageRef(r))
    .find((r): r is ImageRef => r !== undefined);
  if (tagged) {
    if (tagged.digest && !digests.includes(tagged.digest)) digests.push(tagged.digest);
    return { name: tagged.canonical, ref: tagged, digests, scope: `image:${tagged.canonical}` };
  }
  return {
    name: artifact,
    digests,
    note:
      `archive saved by image ID${metadata.ImageID ? ` (${metadata.ImageID})` : ''}: ` +
      'it carries no reference, so it keeps its path and joins no build, workload or attestation',
  };
}

function isArchive(artifact: string): boolean {
  return (
    /\.(?:tar|tar\.gz|tgz|tar\.zst|tar\.xz|tar\.bz2)$/i.test(artifact) ||
    artifact.startsWith('/') ||
    artifact.startsWith('./') ||
    artifact.startsWith('../')
  );
}

/** `alpine@sha256:abc` -> `sha256:abc` */
function digestOf(repoDigest: string): string[] {
  const digest = parseImageRef(repoDigest)?.digest;
  return digest ? [digest] : [];
}

export function nonEmpty(values: string[] | null | undefined): string[] | undefined {
  const kept = (values ?? []).filter((v) => typeof v === 'string' && v.trim() !== '');
  return kept.length ? kept : undefined;
}

export interface LibraryRef {
  label: 'Library' | 'Package';
  ecosystem: string;
  name: string;
  purl: string;
  packageName: string;
  version?: string;
  path?: string;
}

function addLibraries(out: EnvelopeBuilder, imageId: string, result: TrivyResult): Map<string, LibraryRef> {
  const libraries = new Map<string, LibraryRef>();
  for (const pkg of result.Packages ?? []) {
    // The root of a Go binary or a lockfile is the application itself, not a dependency.
    if (pkg.Relationship === 'root') continue;
    const library = libraryRef(result.Type, pkg.Name, pkg.Version, pkg.Identifier?.PURL, pkg.FilePath);
    if (!library) continue;
    addLibrary(out, imageId, result, library, pkg.Relationship);
    libraries.set(pkg.ID ?? `${pkg.Name}@${pkg.Version ?? ''}`, library);
    libraries.set(library.name, library);
  }
  return libraries;
}

function addLibrary(
  out: EnvelopeBuilder,
  imageId: string,
  result: TrivyResult,
  library: LibraryRef,
  relationship?: string,
): string {
  const id = out.node(library.label, library.name, {
    purl: library.purl,
    package: library.packageName,
    version: library.version,
    ecosystem: library.ecosystem,
    package_type: result.Type,
    path: library.path,
  });
  out.edge('DEPENDS_ON', imageId, id, { properties: { target: result.Target, relationship } });
  return id;
}

/** The library a CVE was found in, which the image or repository depends on and the CVE AFFECTS. */
function addAffectedLibrary(
  out: EnvelopeBuilder,
  holderId: string,
  result: TrivyResult,
  library: LibraryRef,
  cve: string,
  vulnerability: TrivyVulnerability,
): void {
  const id = addLibrary(out, holderId, result, library);
  out.edge('AFFECTS', cve, id, {
    properties: {
      installed_version: vulnerability.InstalledVersion,
      fixed_version: vulnerability.FixedVersion || undefined,
      status: vulnerability.Status,
    },
  });
}

/** The library a language-package vulnerability is in: the reported package, or one built for it. */
function libraryFor(
  vulnerability: TrivyVulnerability,
  result: TrivyResult,
  libraries: Map<string, LibraryRef>,
): LibraryRef | undefined {
  if (result.Class !== 'lang-pkgs' || !vulnerability.PkgName) return undefined;
  const byId = vulnerability.PkgID ? libraries.get(vulnerability.PkgID) : undefined;
  if (byId) return byId;
  const library = libraryRef(
    result.Type,
    vulnerability.PkgName,
    vulnerability.InstalledVersion,
    vulnerability.PkgIdentifier?.PURL,
    vulnerability.PkgPath,
  );
  return library && (libraries.get(library.name) ?? library);
}

export function libraryRef(
  type: string | undefined,
  packageName: string,
  version: string | undefined,
  purl: string | undefined,
  path: string | undefined,
): LibraryRef | undefined {
  const ref = packageRef({ name: packageName, version, type, purl });
  return (
    ref && {
      label: ref.label,
      ecosystem: ref.ecosystem,
      name: ref.name,
      purl: ref.purl,
      packageName,
      version,
      path,
    }
  );
}

function addVulnerability(
  out: EnvelopeBuilder,
  imageId: string,
  result: TrivyResult,
  v: TrivyVulnerability,
): string {
  const cvss = preferredCvss(v);
  const id = out.node('CVE', v.VulnerabilityID, {
    severity: v.Severity?.toUpperCase(),
    severity_source: v.SeveritySource,
    cvss_score: cvss?.score,
    cvss_vector: cvss?.vector,
    cvss_source: cvss?.source,
    cvss: v.CVSS,
    title: v.Title,
    url: v.PrimaryURL,
    cwe: v.CweIDs?.length ? v.CweIDs : undefined,
    published_at: v.PublishedDate,
    last_modified_at: v.LastModifiedDate,
  });
  out.edge('AFFECTS', id, imageId, {
    properties: {
      package: v.PkgName,
      installed_version: v.InstalledVersion,
      fixed_version: v.FixedVersion || undefined,
      status: v.Status,
      severity: v.Severity?.toUpperCase(),
      target: result.Target,
    },
  });
  return id;
}

/**
 * The CVSS score Trivy's own severity came from (SeveritySource), else NVD's, else any vendor's; v3 (or
 * v4) before v2, which scores the same flaws differently.
 */
function preferredCvss(
  v: TrivyVulnerability,
): { score: number; vector?: string; source: string } | undefined {
  const cvss = v.CVSS;
  if (!cvss) return undefined;
  for (const [score, vector] of CVSS_VERSIONS) {
    for (const source of [v.SeveritySource, 'nvd']) {
      const entry = source === undefined ? undefined : cvss[source];
      if (entry && (entry[score] ?? 0) > 0)
        return { score: entry[score]!, vector: entry[vector], source: source! };
    }
    for (const source in cvss) {
      const entry = cvss[source];
      if ((entry[score] ?? 0) > 0) return { score: entry[score]!, vector: entry[vector], source };
    }
  }
  return undefined;
}

const CVSS_VERSIONS = [
  ['V40Score', 'V40Vector'],
  ['V3Score', 'V3Vector'],
  ['V2Score', 'V2Vector'],
] as const;

/** A secret Trivy found in the image: where and what kind, never the matched text. */
function addSecret(
  out: EnvelopeBuilder,
  imageId: string,
  imageName: string,
  result: TrivyResult,
  secret: TrivySecret,
): void {
  const line = secret.StartLine !== undefined ? `:${secret.StartLine}` : '';
  const id = out.node('Secret', `${imageName}:${result.Target}${line}:${secret.RuleID}`, {
    rule_id: secret.RuleID,
    category: secret.Category,
    severity: secret.Severity?.toUpperCase(),
    title: secret.Title,
    path: result.Target,
    line: secret.StartLine,
  });
  out.edge('AFFECTS', id, imageId);
}

/** The failed checks of one result, each a Misconfiguration that AFFECTS `targetId`. */
function addMisconfigurations(
  out: EnvelopeBuilder,
  targetId: string,
  targetName: string,
  result: TrivyResult,
  pointer: string,
  warnings: string[],
): void {
  for (const misconfiguration of result.Misconfigurations ?? []) {
    if (!failed(misconfiguration)) continue;
    if (!addMisconfiguration(out, targetId, targetName, result, misconfiguration))
      warnings.push(`trivy report: ${pointer}/Misconfigurations: a check without ID was skipped`);
  }
}

function addMisconfiguration(
  out: EnvelopeBuilder,
  imageId: string,
  imageName: string,
  result: TrivyResult,
  m: TrivyMisconfiguration,
): boolean {
  // One id per check whichever Trivy version wrote it (docs/model.md): a rescan names the same node.
  const check = canonicalCheckId(m.ID, m.AVDID);
  if (!check) return false;
  const id = out.node('Misconfiguration', `${imageName}:${result.Target}:${check}`, {
    check_id: check,
    reported_id: m.ID,
    reported_avd_id: m.AVDID,
    title: m.Title,
    message: m.Message,
    resolution: m.Resolution,
    severity: m.Severity?.toUpperCase(),
    url: m.PrimaryURL,
    path: result.Target,
  });
  out.edge('AFFECTS', id, imageId);
  return true;
}

/**
 * A `trivy k8s` report (trivy-k8s.ts): each image an object runs is mapped as an image scan of that image,
 * named by the same rules (so the k8s dump's workloads join it); each failed check of an object's manifest
 * is a Misconfiguration that AFFECTS the node the k8s source draws for that object, in the cluster
 * `?cluster=` names (as for the dump: the report's own ClusterName is a kubeconfig's, often an ARN). Not
 * complete for any scope: the report does not say which namespaces it covers.
 */
function normalizeCluster(
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
function mapClusterReading(
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

/** A check that failed: Trivy writes PASS and EXCEPTION too, and older versions no status at all. */
function failed(m: TrivyMisconfiguration): boolean {
  return m.Status === undefined || m.Status === 'FAIL';
}

/** A `trivy fs` / `trivy repo` report: the Repository, its libraries and their CVEs, secrets, misconfigurations. */
function normalizeRepository(
  report: TrivyReport,
  query: Record<string, string | undefined>,
  receivedAt: string,
): ReturnType<IngestSource['normalize']> {
  const name = nameRepository(report, query);
  const metadata = report.Metadata ?? {};
  const results = report.Results ?? [];
  const warnings: string[] = [];
  const out = new EnvelopeBuilder('trivy', 'finding', receivedAt);
  const repository = out.node('Repository', name, {
    code_scanner: 'trivy',
    artifact_type: report.ArtifactType,
    artifact_name: report.ArtifactName,
    repo_url: metadata.RepoURL,
    branch: metadata.Branch,
    commit_sha: metadata.Commit?.toLowerCase(),
    scanner_version: report.Trivy?.Version,
    scanned_at: report.CreatedAt,
    vulnerability_count: results.reduce((n, r) => n + (r.Vulnerabilities?.length ?? 0), 0),
  });
  const cves = new Set<string>();
  for (const [index, result] of results.entries()) {
    const libraries = result.Class === 'lang-pkgs' ? addLibraries(out, repository, result) : new Map();
    for (const vulnerability of result.Vulnerabilities ?? []) {
      const cve = addVulnerability(out, repository, result, vulnerability);
      cves.add(cve);
      const library = libraryFor(vulnerability, result, libraries);
      if (library) addAffectedLibrary(out, repository, result, library, cve, vulnerability);
    }
    for (const secret of result.Secrets ?? []) addSecret(out, repository, name, result, secret);
    addMisconfigurations(out, repository, name, result, `/Results/${index}`, warnings);
  }
  return { envelopes: [out.build()], warnings, scope: `repo:${name}`, mentioned: [...cves] };
}

/**
 * A `trivy sbom` report: Trivy's findings on the packages an SBOM lists, about what the SBOM describes. Its
 * ArtifactName is the SBOM file's path and names nothing. `?repo=` makes it a code scan of that repository,
 * `?image=` a scan of that image; without either, the image reference Trivy carried over from the SBOM
 * (`Metadata.Reference`, `RepoTags`, `RepoDigests`) names the image, and a report with none is refused
 * (an image ID alone joins no workload). It is complete for its subject as a scan of an SBOM (the scope
 * ends `#sbom`): an image scan and a scan of the image's SBOM read different artifacts (the SBOM lists no
 * secret and runs no check), so neither retracts what the other found; the next scan of an SBOM of the
 * same subject retracts what it no longer lists.
 */
function normalizeSbomScan(
  report: TrivyReport,
  query: Record<string, string | undefined>,
  receivedAt: string,
): ReturnType<IngestSource['normalize']> {
  if (query.repo?.trim()) {
    const output = normalizeRepository(report, query, receivedAt);
    return { ...output, scope: `${output.scope}#sbom` };
  }
  const metadata = report.Metadata ?? {};
  const given = query.image?.trim();
  if (given !== undefined && given !== '' && (isImageId(given) || !parseImageRef(given))) {
    throw new ProblemError('invalid-query', `?image=${JSON.stringify(given)} is not an image reference`, {
      errors: [
        {
          pointer: '/query/image',
          value: given,
          detail: 'an image reference (registry/name:tag or name@sha256:...) is required',
        },
      ],
    });
  }
  const reference = given || sbomScanImage(report);
  if (!reference) {
    throw new ProblemError(
      'invalid-query',
      `trivy ${report.ArtifactType} report of the SBOM ${JSON.stringify(report.ArtifactName)}: the SBOM names no ` +
        'image Trivy could carry over; name what it describes with ?image=<reference> or ?repo=<repository>',
      {
        errors: [
          {
            pointer: '/query/image',
            value: query.image ?? null,
            detail:
              `required (or ?repo=): /ArtifactName ${JSON.stringify(report.ArtifactName)} is the SBOM's path` +
              (metadata.ImageID ? `, and the image ID ${metadata.ImageID} alone joins no workload` : ''),
          },
        ],
      },
    );
  }
  const out = new EnvelopeBuilder('trivy', 'finding', receivedAt);
  const warnings: string[] = [];
  const { image, cves } = mapImage(out, { ...report, ArtifactName: reference }, warnings);
  const scope = image.scope === undefined ? undefined : `${image.scope}#sbom`;
  return { envelopes: [out.build()], warnings, scope, mentioned: cves };
}

/**
 * Trivy's JSON before SchemaVersion 2 (0.19 and older): a bare list of results (`Target`, `Type`,
 * `Vulnerabilities`). Recognised so that it is refused by name rather than skipped as no report at all.
 */
export function isLegacyTrivyReport(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (item: unknown) =>
        typeof item === 'object' &&
        item !== null &&
        typeof (item as { Target?: unknown }).Target === 'string' &&
        ('Vulnerabilities' in item || 'Type' in item),
    )
  );
}

/**
 * The image a `trivy sbom` report names: the reference Trivy carried over from the SBOM
 * (`Metadata.Reference`, `RepoTags`, `RepoDigests`), if any. An SBOM scan without one describes a
 * repository or needs `?image=` (`pathgate ingestreal` names the folder's repository then, as it does for an
 * SBOM of no image).
 */
export function sbomScanImage(report: { Metadata?: TrivyMetadata }): string | undefined {
  const metadata = report.Metadata ?? {};
  return [
    metadata.Reference,
    ...(nonEmpty(metadata.RepoTags) ?? []),
    ...(nonEmpty(metadata.RepoDigests) ?? []),
  ].find(
    (r): r is string =>
      typeof r === 'string' && r.trim() !== '' && !isImageId(r) && parseImageRef(r) !== undefined,
  );
}

/**
 * The repository a code scan read: `?repo=` when given, else the report's URL (`ArtifactName` or
 * `Metadata.RepoURL`) written `host/owner/name`, the form build provenance uses. A local path names
 * nothing, so `?repo=` is required then.
 */
function nameRepository(report: TrivyReport, query: Record<string, string | undefined>): string {
  const given = query.repo?.trim();
  if (given) return given;
  const fromUrl = [report.ArtifactName, report.Metadata?.RepoURL]
    .map((candidate) => repositoryFromUrl(candidate))
    .find((r): r is string => r !== undefined);
  if (fromUrl) return fromUrl;
  throw new ProblemError(
    'invalid-query',
    `trivy ${report.ArtifactType} report of a local path (${report.ArtifactName}): name its repository with ?repo=<repository>`,
    {
      errors: [
        {
          pointer: '/query/repo',
          value: query.repo ?? null,
          detail: `required: /ArtifactName "${report.ArtifactName}" is a path, not a repository URL`,
        },
      ],
    },
  );
}

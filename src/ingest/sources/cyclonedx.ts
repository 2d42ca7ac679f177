// Reading a CycloneDX document (JSON, spec 1.2 to 1.7) for the supply-chain source: the image it describes
// (metadata.component, with Trivy's RepoTag/RepoDigest/Reference properties), its package components
// (nested ones too) and any vulnerabilities it lists against them.
import { isImageId, parseImageRef, type ImageRef } from '../../identity/image-ref.js';
import { packageRef, type PackageRef } from '../../identity/package-ref.js';
import { MAX_BODY_DEPTH } from '../body-guard.js';

export interface CdxComponent {
  type?: string;
  name?: string;
  version?: string;
  purl?: string;
  'bom-ref'?: string;
  properties?: { name?: string; value?: string }[];
  components?: CdxComponent[];
}

interface CdxRating {
  source?: { name?: string };
  score?: number;
  severity?: string;
  method?: string;
  vector?: string;
}

interface CdxVulnerability {
  id?: string;
  source?: { name?: string };
  ratings?: CdxRating[];
  cwes?: number[];
  description?: string;
  published?: string;
  advisories?: { url?: string }[];
  affects?: { ref?: string }[];
  /** the same vulnerability under other ids (OSS Index names its own ids and refers to the CVE here) */
  references?: { id?: string }[];
  /** VEX: what the producer concluded (`not_affected`, `exploitable`, `in_triage`, ...) */
  analysis?: { state?: string; justification?: string };
}

export interface CdxDocument {
  bomFormat: 'CycloneDX';
  specVersion?: string;
  metadata?: { component?: CdxComponent };
  components?: CdxComponent[];
  vulnerabilities?: CdxVulnerability[];
}

export interface SbomPackage extends PackageRef {
  packageName: string;
  version?: string;
  bomRef?: string;
}

export interface SbomVulnerability {
  /** the CVE id when the vulnerability has one (its own id, or the one CVE its references name), else its id */
  id: string;
  /** the tool's own id when the vulnerability is named by the CVE it refers to */
  advisoryId?: string;
  severity?: string;
  cvssScore?: number;
  cvssVector?: string;
  cvssSource?: string;
  cwe?: string[];
  url?: string;
  publishedAt?: string;
  /** bom-refs of the components it affects */
  affects: string[];
  /** the VEX analysis state, when the document gives one */
  state?: string;
}

/**
 * VEX analysis states that say the components are not affected (CycloneDX 1.4+ `analysis.state`): a
 * vulnerability so marked is no flaw of theirs, and draws no AFFECTS. `exploitable` and `in_triage` still do.
 */
export const NOT_AFFECTED_STATES: ReadonlySet<string> = new Set([
  'not_affected',
  'false_positive',
  'resolved',
  'resolved_with_pedigree',
]);

/** Component types that are packages; applications, containers, the OS and files are not. */
const PACKAGE_TYPES = new Set(['library', 'framework']);

export const CYCLONEDX_SCHEMA = {
  type: 'object',
  required: ['bomFormat'],
  properties: {
    bomFormat: { const: 'CycloneDX' },
    specVersion: { type: 'string' },
    metadata: { type: 'object', properties: { component: { type: 'object' } } },
    components: { type: 'array', items: { type: 'object' } },
    vulnerabilities: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'string', minLength: 1 },
          // A CVSS rating outside CVSS's range is refused (docs/errors.md); other methods keep their own scales.
          ratings: {
            type: 'array',
            items: {
              if: { required: ['method'], properties: { method: { type: 'string', pattern: '^CVSSv' } } },
              then: { properties: { score: { type: 'number', minimum: 0, maximum: 10 } } },
            },
          },
        },
      },
    },
  },
} as const;

/** The image a container SBOM describes, as Trivy and Syft write it; undefined for other SBOMs. */
export function sbomImage(doc: CdxDocument): ImageRef | undefined {
  const component = doc.metadata?.component;
  if (!component || (component.type !== undefined && component.type !== 'container')) return undefined;
  const property = (name: string) =>
    component.properties?.filter((p) => p.name === name && p.value).map((p) => p.value!) ?? [];
  // Syft writes the image's digest as the version (`sha256:<hex>`), JFrog Xray as `sha256__<hex>`: a digest,
  // not a tag.
  const versionDigest = /^sha256(?::|__)([0-9a-f]{64})$/i.exec(component.version ?? '')?.[1];
  const candidates = [
    ...property('aquasecurity:trivy:Reference'),
    ...property('aquasecurity:trivy:RepoTag'),
    component.version && component.name && !versionDigest
      ? `${component.name}:${component.version}`
      : undefined,
    component.name,
  ];
  const digest =
    property('aquasecurity:trivy:RepoDigest')
      .map((d) => parseImageRef(d)?.digest)
      .find(Boolean) ?? (versionDigest ? `sha256:${versionDigest.toLowerCase()}` : undefined);
  for (const candidate of candidates) {
    if (!candidate || isImageId(candidate) || /\.(?:tar|tar\.gz|tgz)$/i.test(candidate)) continue;
    const ref = parseImageRef(candidate);
    if (ref) return digest && !ref.digest ? parseImageRef(`${ref.raw}@${digest}`) : ref;
  }
  return ociPurlImage(component.purl);
}

/** `pkg:oci/ubuntu@sha256%3A..?repository_url=index.docker.io%2Flibrary%2Fubuntu&tag=x` -> an image ref */
export function ociPurlImage(purl: string | undefined): ImageRef | undefined {
  const match = purl && /^pkg:(oci|docker)\/([^@?#]+)(?:@([^?#]+))?(?:\?([^#]*))?/.exec(purl);
  if (!match) return undefined;
  const [, type, path, version, query] = match;
  const qualifiers = new URLSearchParams(query ?? '');
  const repository = qualifiers.get('repository_url') ?? decodeURIComponent(path);
  const at = version ? decodeURIComponent(version) : undefined;
  const tag = qualifiers.get('tag') ?? (at && !at.includes(':') ? at : undefined);
  const digest = at?.includes(':') ? at : undefined;
  if (type === 'oci' && !digest && !tag) return undefined;
  return parseImageRef(`${repository}${tag ? `:${tag}` : ''}${digest ? `@${digest}` : ''}`);
}

/** Every package component, nested ones included, once per graph name. */
export function sbomPackages(doc: CdxDocument): SbomPackage[] {
  const found = new Map<string, SbomPackage>();
  // Nested components recurse; bodies are guarded at MAX_BODY_DEPTH when parsed, and so is this walk.
  const walk = (components: CdxComponent[] | undefined, depth = 0) => {
    if (depth > MAX_BODY_DEPTH) return;
    for (const component of components ?? []) {
      if (component.type === undefined || PACKAGE_TYPES.has(component.type)) {
        const ref = component.name
          ? packageRef({ name: component.name, version: component.version, purl: component.purl })
          : undefined;
        if (ref && !found.has(ref.name)) {
          found.set(ref.name, {
            ...ref,
            packageName: component.name!,
            version: component.version,
            bomRef: component['bom-ref'],
          });
        }
      }
      walk(component.components, depth + 1);
    }
  };
  walk(doc.components);
  return [...found.values()];
}

/** Vulnerabilities a CycloneDX document lists, scored like Trivy's (docs/model.md). */
export function sbomVulnerabilities(doc: CdxDocument): SbomVulnerability[] {
  return (doc.vulnerabilities ?? []).flatMap((v) => {
    if (!v.id) return [];
    const ratings = v.ratings ?? [];
    const own = v.source?.name;
    const severity =
      ratings.find((r) => r.source?.name === own && r.severity)?.severity ??
      ratings.find((r) => r.source?.name === 'nvd' && r.severity)?.severity ??
      ratings.find((r) => r.severity)?.severity;
    const scored = ratings.filter((r) => typeof r.score === 'number' && r.score > 0);
    const byMethod = (methods: RegExp) => [
      ...scored.filter((r) => methods.test(r.method ?? '') && r.source?.name === own),
      ...scored.filter((r) => methods.test(r.method ?? '') && r.source?.name === 'nvd'),
      ...scored.filter((r) => methods.test(r.method ?? '')),
    ];
    const cvss = [...byMethod(/^CVSSv4/i), ...byMethod(/^CVSSv3/i), ...byMethod(/^CVSSv2/i)][0];
    const id = cveOf(v);
    return [
      {
        id,
        advisoryId: id !== v.id ? v.id : undefined,
        severity: severity && severity !== 'unknown' ? normalizeSeverity(severity) : undefined,
        cvssScore: cvss?.score,
        cvssVector: cvss?.vector,
        cvssSource: cvss?.source?.name,
        cwe: v.cwes?.length ? v.cwes.map((c) => `CWE-${c}`) : undefined,
        url: v.advisories?.find((a) => a.url)?.url,
        publishedAt: v.published,
        affects: (v.affects ?? []).map((a) => a.ref).filter((r): r is string => typeof r === 'string'),
        state: typeof v.analysis?.state === 'string' ? v.analysis.state : undefined,
      },
    ];
  });
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/i;

/**
 * The CVE a vulnerability is: its own id when that is one, else the single CVE its `references` name (OSS
 * Index writes its own UUIDs as ids and the CVE as a reference), so that it meets the CVE node another
 * scanner and the threat intel name. Several CVEs, or none, keep the vulnerability's own id.
 */
function cveOf(v: CdxVulnerability): string {
  const own = v.id!;
  if (CVE_ID.test(own)) return own.toUpperCase();
  const cves = new Set(
    (v.references ?? [])
      .map((r) => r.id)
      .filter((r): r is string => typeof r === 'string' && CVE_ID.test(r))
      .map((r) => r.toUpperCase()),
  );
  return cves.size === 1 ? [...cves][0] : own;
}

/** CycloneDX severities are lower-case and include `info` and `none`. */
function normalizeSeverity(severity: string): string {
  const upper = severity.toUpperCase();
  return upper === 'INFO' || upper === 'NONE' ? 'LOW' : upper;
}

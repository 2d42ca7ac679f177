// A scan's findings drawn into the envelope, on the image or repository that holds them: its libraries
// (DEPENDS_ON), the CVEs affecting it and them, its secrets and its failed misconfiguration checks. Shared by
// every kind of Trivy report the source maps (addResultFindings); libraryRef by the grype source too
// (re-exported by trivy.ts).
import { canonicalCheckId } from '../../../identity/check-id.js';
import { packageRef } from '../../../identity/package-ref.js';
import type { EnvelopeBuilder } from '../envelope-builder.js';
import type { TrivyMisconfiguration, TrivyResult, TrivySecret, TrivyVulnerability } from './report-shape.js';

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

/**
 * Every result's findings on the scanned node `targetId` (named `targetName`): a language result's libraries,
 * each vulnerability's CVE (and the library it affects), secrets and failed checks. `found` is told each
 * vulnerability with its CVE's id; `pointers`: each result's JSON pointer where it is not `/Results/<index>`
 * (a cluster report's).
 */
export function addResultFindings(
  out: EnvelopeBuilder,
  targetId: string,
  targetName: string,
  results: TrivyResult[],
  warnings: string[],
  options: { pointers?: string[]; found?: (cve: string, vulnerability: TrivyVulnerability) => void } = {},
): void {
  for (const [index, result] of results.entries()) {
    const libraries = result.Class === 'lang-pkgs' ? addLibraries(out, targetId, result) : new Map();
    for (const vulnerability of result.Vulnerabilities ?? []) {
      const cve = addVulnerability(out, targetId, result, vulnerability);
      options.found?.(cve, vulnerability);
      const library = libraryFor(vulnerability, result, libraries);
      if (library) addAffectedLibrary(out, targetId, result, library, cve, vulnerability);
    }
    for (const secret of result.Secrets ?? []) addSecret(out, targetId, targetName, result, secret);
    const pointer = options.pointers?.[index] ?? `/Results/${index}`;
    addMisconfigurations(out, targetId, targetName, result, pointer, warnings);
  }
}

/** The failed checks of one result, each a Misconfiguration that AFFECTS `targetId`. */
export function addMisconfigurations(
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

/** A check that failed: Trivy writes PASS and EXCEPTION too, and older versions no status at all. */
export function failed(m: TrivyMisconfiguration): boolean {
  return m.Status === undefined || m.Status === 'FAIL';
}

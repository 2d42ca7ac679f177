// An SPDX 2.x JSON SBOM (`trivy --format spdx-json`, `syft -o spdx-json`, GitHub's dependency graph export)
// read as the supply-chain source's `sbom` list (the spec's second form: `{name, version, type, purl}` per
// component): every package with a purl (`externalRefs` of type `purl`) except what the document describes,
// and the subject it describes: a container image (a root package whose purpose is `CONTAINER`, named by its
// reference), or a repository (a root package `pkg:github/<owner>/<repo>`, as GitHub writes it).
import { parseImageRef } from '../../identity/image-ref.js';

type Json = Record<string, unknown>;

export interface SpdxReading {
  components: { name: string; version?: string; purl: string }[];
  /** the image the document describes, when it describes one */
  image?: string;
  /** the repository it describes (`github.com/<owner>/<repo>`), when it says */
  repository?: string;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The purl a package names in its external references, without surrounding blanks; undefined if none. */
function purlOf(p: Json): string | undefined {
  for (const ref of Array.isArray(p.externalRefs) ? p.externalRefs : []) {
    if (!isObject(ref) || String(ref.referenceType).toLowerCase() !== 'purl') continue;
    const locator = typeof ref.referenceLocator === 'string' ? ref.referenceLocator.trim() : '';
    if (locator.startsWith('pkg:')) return locator;
  }
  return undefined;
}

/** The SPDX ids the document describes: `documentDescribes`, and what `SPDXRef-DOCUMENT` DESCRIBES. */
function describedIds(doc: Json): Set<string> {
  const ids = new Set<string>();
  for (const id of Array.isArray(doc.documentDescribes) ? doc.documentDescribes : [])
    if (typeof id === 'string') ids.add(id);
  for (const r of Array.isArray(doc.relationships) ? doc.relationships : [])
    if (
      isObject(r) &&
      r.relationshipType === 'DESCRIBES' &&
      r.spdxElementId === 'SPDXRef-DOCUMENT' &&
      typeof r.relatedSpdxElement === 'string'
    )
      ids.add(r.relatedSpdxElement);
  return ids;
}

export function readSpdx(doc: Json): SpdxReading {
  const packages = (Array.isArray(doc.packages) ? doc.packages : []).filter(isObject);
  const described = describedIds(doc);
  const roots = packages.filter((p) => typeof p.SPDXID === 'string' && described.has(p.SPDXID));
  const components: SpdxReading['components'] = [];
  for (const p of packages) {
    if (roots.includes(p) || typeof p.name !== 'string' || !p.name) continue;
    const purl = purlOf(p);
    if (!purl) continue;
    components.push({
      name: p.name,
      ...(typeof p.versionInfo === 'string' && p.versionInfo && { version: p.versionInfo }),
      purl,
    });
  }
  let image: string | undefined;
  let repository: string | undefined;
  for (const root of roots) {
    if (
      root.primaryPackagePurpose === 'CONTAINER' &&
      typeof root.name === 'string' &&
      parseImageRef(root.name)
    )
      image ??= root.name;
    const github = /^pkg:github\/([^/@?#]+)\/([^/@?#]+)/.exec(purlOf(root) ?? '');
    if (github) repository ??= `github.com/${github[1]}/${github[2]}`;
  }
  return { components, ...(image && { image }), ...(repository && { repository }) };
}

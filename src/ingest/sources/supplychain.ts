// Source `supplychain`: what is known about how an image (or package) was built and what it contains.
// Accepts the spec's report `{image, signed?, slsa_level?, provenance_builder?, source_repo?, sbom?}` (sbom a
// CycloneDX document or a component array; `provenance` any shape below), and the real documents on their
// own: a CycloneDX or SPDX SBOM, an in-toto statement, a DSSE envelope, a Sigstore bundle (over a statement or
// a blob), PyPI PEP 740 attestations, npm attestations or Cloud Build provenance (`?image=` names the image when
// the document does not; an SBOM of no image is the repository's `?repo=` names). Attestations are read by
// predicate: SLSA provenance gives the level, a verification summary the level it verified, an SBOM
// attestation its packages. Stamps `signed` (true only when the signature verified: src/ingest/signatures/,
// else `signature: signature_unverified` and why), the certificate's `signer_identity`, `slsaLevel`,
// `sbomComponents` and `provenance_builder` on the subject; each component is a Library/Package the subject DEPENDS_ON; the source repository is drawn as
// BUILT_FROM. An SPDX 2.x JSON SBOM is read as the spec's component list (spdx.ts).
import { ProblemError } from '../../http/problems.js';
import { parseImageRef, type ImageRef } from '../../identity/image-ref.js';
import { packageRef } from '../../identity/package-ref.js';
import { repositoryFromUrl } from '../../identity/repository-name.js';
import type { FieldError } from '../envelope.js';
import {
  CYCLONEDX_SCHEMA,
  NOT_AFFECTED_STATES,
  ociPurlImage,
  sbomImage,
  sbomPackages,
  sbomVulnerabilities,
  type CdxDocument,
  type SbomPackage,
} from './cyclonedx.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import {
  isProvenanceDocument,
  ProvenanceError,
  pypiDistributionPurl,
  readProvenance,
  type Provenance,
  type VerificationSummary,
} from './provenance.js';
import { reportProblem, reportSchema } from './report-schema.js';
import { loadSignatureTrust, type SignatureTrust } from '../signatures/trust.js';
import { verifyProvenanceSignatures, type SignatureVerdict } from '../signatures/verify.js';
import { readSpdx } from './spdx.js';
import type { IngestSource, NormalizeInput, NormalizeOutput } from './source.js';

interface ComponentEntry {
  name: string;
  version?: string;
  type?: string;
  purl?: string;
}

interface SupplyChainReport {
  image: string;
  signed?: boolean;
  slsa_level?: number;
  provenance_builder?: string;
  source_repo?: string;
  sbom?: CdxDocument | ComponentEntry[];
  provenance?: unknown;
}

const COMPONENTS_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1 },
      version: { type: 'string' },
      type: { type: 'string' },
      purl: { type: 'string', pattern: '^pkg:[A-Za-z][A-Za-z0-9.+-]*/' },
    },
  },
};

/** Verification summary predicate types before v1 (v0.1, v0.2). */
const OLDER_VSA = /^https:\/\/slsa\.dev\/verification_summary\/v0/;

/** SLSA Build L3 builders: slsa-framework's own reusable workflows, released and named `*_slsa3.yml`. */
const SLSA3_BUILDER =
  /^https:\/\/github\.com\/slsa-framework\/[^/]+\/\.github\/workflows\/[^@]+_slsa3\.yml@refs\/tags\/v\d/;

export interface SupplyChainOptions {
  /** what signatures verify against (settings); unset: the public-good Sigstore root, no keys, read on first use */
  signatures?: SignatureTrust;
}

export function createSupplyChainSource(options: SupplyChainOptions = {}): IngestSource {
  let trust = options.signatures;
  const signatureTrust = () => (trust ??= loadSignatureTrust());
  const checkReport = reportSchema<SupplyChainReport>('supplychain', {
    type: 'object',
    required: ['image'],
    properties: {
      image: { type: 'string', minLength: 1 },
      signed: { type: 'boolean' },
      slsa_level: { type: 'integer', minimum: 0, maximum: 4 },
      provenance_builder: { type: 'string', minLength: 1 },
      source_repo: { type: 'string', minLength: 1 },
      sbom: { if: { type: 'array' }, then: COMPONENTS_SCHEMA, else: CYCLONEDX_SCHEMA },
      provenance: { type: 'object' },
    },
  });
  const checkSbom = reportSchema<CdxDocument>('supplychain', CYCLONEDX_SCHEMA);
  return {
    name: 'supplychain',
    // 3: `signed` means verified; `signature`, `signature_problem` (issue 35)
    version: '3',
    description:
      'Supply chain: {image, signed?, slsa_level?, provenance_builder?, source_repo?, sbom?}, a CycloneDX SBOM, ' +
      'or provenance (in-toto statement, DSSE envelope, Sigstore bundle, PyPI PEP 740 attestations, npm attestations).',
    snapshots: 'query',
    normalize(input) {
      // Several attestations, one per line (`cosign download attestation`, `gh attestation download`'s
      // .jsonl of Sigstore bundles), or a list of them: each read as it would be alone.
      return Array.isArray(input.body) && input.body.some(isProvenanceDocument)
        ? normalizeEach(input.body, (body) => normalizeOne({ ...input, body }))
        : normalizeOne(input);
    },
  };

  function normalizeOne({ body, query, receivedAt }: NormalizeInput): NormalizeOutput {
    const report = readReport(body, query, checkReport, checkSbom);
    const warnings: string[] = [];
    const provenance = report.provenance === undefined ? undefined : provenanceOf(report);
    // An SBOM attestation carries the SBOM about its subjects: read as a posted one would be.
    if (report.sbom === undefined && provenance?.sbom)
      report.sbom = attestedSbom(provenance.sbom.document, provenance.sbom.pointer, checkSbom);
    if (report.sbom === undefined && provenance?.spdx)
      report.sbom = readSpdx(provenance.spdx.document).components;
    if (provenance?.unreadSbom)
      warnings.push(
        `supplychain report: the attested SBOM (${provenance.unreadSbom}) is not read: pathgate reads CycloneDX ` +
          'and SPDX JSON (this one is neither); only the subject is stamped',
      );
    const out = new EnvelopeBuilder('supplychain', 'asset', receivedAt);
    const cdx = report.sbom !== undefined && !Array.isArray(report.sbom) ? report.sbom : undefined;

    const subjects: string[] = [];
    if (report.image !== undefined) {
      const ref = imageRef(report.image, report.pointer);
      subjects.push(addImage(out, ref));
      const digests = [...(provenance?.subjects.map((s) => s.digest) ?? []), provenance?.blob?.digest].filter(
        Boolean,
      );
      if (ref.digest && digests.length && !digests.includes(ref.digest)) {
        warnings.push(
          `supplychain report: the provenance's subjects do not include ${ref.digest}, the image's digest`,
        );
      }
    } else if (report.repository !== undefined) {
      // An SBOM of a repository (`trivy fs`, cdxgen, a build plugin): its packages are the repository's, as a
      // `trivy fs` scan of it draws them (DECISIONS "Code to cloud").
      subjects.push(out.node('Repository', report.repository, {}));
    } else if (provenance) {
      for (const subject of provenance.subjects) subjects.push(addSubject(out, subject, provenance));
      if (provenance.blob) warnings.push(unnamedBlob(provenance));
    }
    if (provenance?.vsa) {
      const problem = vsaProblem(provenance.vsa);
      if (problem)
        warnings.push(
          `supplychain report: the SLSA verification summary ${problem}: no SLSA level is taken from it`,
        );
    }
    // v0.1/v0.2 summaries name their levels differently (`policyLevel`, `SLSA_LEVEL_<n>`): said, not guessed.
    const olderVsa = provenance?.predicateTypes.filter((t) => OLDER_VSA.test(t)) ?? [];
    if (olderVsa.length)
      warnings.push(
        `supplychain report: a SLSA verification summary of ${olderVsa.join(', ')} is not read for a level ` +
          '(pathgate reads https://slsa.dev/verification_summary/v1); only the subject is stamped',
      );

    const signature = signatureOf(report, provenance, signatureTrust);
    const signed = signature && signature.state === 'signed';
    const builder = report.provenance_builder ?? provenance?.builder;
    const slsa = slsaLevel(report.slsa_level, signed, builder, provenance);
    const packages = report.sbom === undefined ? undefined : componentsOf(report.sbom);
    if (signature?.problem) warnings.push(`supplychain report: signature_unverified: ${signature.problem}`);
    const stamp = {
      signed,
      signature: signature?.state,
      signature_problem: signature?.problem,
      signature_verified: provenance?.signed ? signature?.state === 'signed' : undefined,
      slsaLevel: slsa?.level,
      slsa_level_basis: slsa?.basis,
      provenance_builder: builder,
      provenance_format: provenance?.format,
      provenance_predicate: provenance?.predicateTypes.length ? provenance.predicateTypes : undefined,
      provenance_build_type: provenance?.buildType,
      signer_identity: provenance?.signer?.identity,
      signer_issuer: provenance?.signer?.issuer,
      slsa_verifier: provenance?.vsa?.verifier,
      slsa_verified_levels: provenance?.vsa?.levels.length ? provenance.vsa.levels : undefined,
      sbomComponents: packages?.length,
      sbom_format: cdx ? `cyclonedx ${cdx.specVersion ?? ''}`.trim() : packages ? 'components' : undefined,
    };
    const sourceRepo = report.source_repo?.trim() || provenance?.sourceRepo;
    const repository = sourceRepo ? out.node('Repository', sourceRepo) : undefined;
    for (const subject of subjects) {
      out.stamp(subject, stamp);
      if (repository) {
        out.edge('BUILT_FROM', subject, repository, {
          properties: { commit_sha: provenance?.commit, source_uri: provenance?.sourceUri, builder },
        });
      }
    }

    const byRef = new Map<string, string>();
    for (const pkg of packages ?? []) {
      const id = out.node(pkg.label, pkg.name, {
        purl: pkg.purl,
        package: pkg.packageName,
        version: pkg.version,
        ecosystem: pkg.ecosystem,
      });
      if (pkg.bomRef) byRef.set(pkg.bomRef, id);
      for (const subject of subjects) out.edge('DEPENDS_ON', subject, id, { properties: { sbom: true } });
    }
    const mentioned: string[] = [];
    if (cdx) {
      const dismissed: string[] = [];
      for (const v of sbomVulnerabilities(cdx)) {
        if (v.state !== undefined && NOT_AFFECTED_STATES.has(v.state)) {
          dismissed.push(`${v.id} (${v.state})`);
          continue;
        }
        const cve = out.node('CVE', v.id, {
          advisory_id: v.advisoryId,
          severity: v.severity,
          cvss_score: v.cvssScore,
          cvss_vector: v.cvssVector,
          cvss_source: v.cvssSource,
          cwe: v.cwe,
          url: v.url,
          published_at: v.publishedAt,
        });
        mentioned.push(cve);
        const affected = v.affects
          .map((ref) => byRef.get(ref))
          .filter((id): id is string => id !== undefined);
        for (const id of affected) out.edge('AFFECTS', cve, id);
        for (const subject of subjects) out.edge('AFFECTS', cve, subject);
      }
      if (dismissed.length)
        warnings.push(
          `supplychain report: ${dismissed.length} vulnerability(ies) the SBOM's VEX analysis marks not affecting ` +
            `its components skipped: ${dismissed.join(', ')}`,
        );
    }
    return { envelopes: [out.build()], warnings, mentioned };
  }
}

/**
 * What is known of the subject's signature: a `signed` the report declares (the spec's report: verified
 * upstream), else the verdict on the signatures the provenance carries; undefined when nothing says.
 */
function signatureOf(
  report: Read,
  provenance: Provenance | undefined,
  trust: () => SignatureTrust,
): SignatureVerdict | undefined {
  if (report.signed !== undefined) return { state: report.signed ? 'signed' : 'unsigned' };
  if (!provenance) return undefined;
  if (!provenance.signed) return { state: 'unsigned' };
  const verdict = verifyProvenanceSignatures(report.provenance, trust());
  if (verdict.state !== 'signed' || !report.image) return verdict;
  // A verified signature over other artifacts says nothing of this image: its digest must be a subject.
  const pinned = parseImageRef(report.image)?.digest;
  const digests = [...provenance.subjects.map((s) => s.digest), provenance.blob?.digest];
  if (pinned && !digests.includes(pinned))
    return {
      state: 'signature_unverified',
      problem: `the signature verifies, but over ${digests.filter(Boolean).join(', ') || 'subjects without a digest'}, not ${pinned}, the image's digest`,
    };
  return verdict;
}

/**
 * A list of attestations read one by one: their envelopes and what they mention together, each warning once,
 * and an item that is not one (or is refused) named by its index.
 */
function normalizeEach(items: unknown[], one: (body: unknown) => NormalizeOutput): NormalizeOutput {
  const outputs = items.map((item, i) => {
    if (!isProvenanceDocument(item))
      throw reportProblem('supplychain', [
        {
          pointer: `/${i}`,
          detail:
            'not an attestation: a list holds DSSE envelopes, in-toto statements or Sigstore bundles, one per item',
        },
      ]);
    try {
      return one(item);
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      const errors = ((error.problem.errors as FieldError[] | undefined) ?? []).map((e) => ({
        ...e,
        pointer: `/${i}${e.pointer === '/' ? '' : e.pointer}`,
      }));
      throw reportProblem(
        'supplychain',
        errors.length ? errors : [{ pointer: `/${i}`, detail: error.message }],
      );
    }
  });
  return {
    envelopes: outputs.flatMap((o) => o.envelopes),
    warnings: [...new Set(outputs.flatMap((o) => o.warnings))],
    mentioned: [...new Set(outputs.flatMap((o) => o.mentioned ?? []))],
  };
}

/** The report as read: the spec's fields, and what the document is about (an image, or a repository). */
type Read = Omit<SupplyChainReport, 'image'> & { image?: string; repository?: string; pointer: string };

/** The report in the spec's shape, whichever shape was posted. */
function readReport(
  body: unknown,
  query: Record<string, string | undefined>,
  checkReport: (body: unknown) => SupplyChainReport,
  checkSbom: (body: unknown) => CdxDocument,
): Read {
  const image = query.image?.trim() || undefined;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    if ('spdxVersion' in body) {
      // An SPDX SBOM: its packages as the spec's component list, about the image or repository it describes.
      const spdx = readSpdx(body as Record<string, unknown>);
      const described = image ?? spdx.image;
      if (described)
        return { image: described, sbom: spdx.components, pointer: image ? '/query/image' : '/packages' };
      const repository = query.repo?.trim() || spdx.repository;
      if (repository) return { sbom: spdx.components, repository, pointer: '/query/repo' };
      throw reportProblem('supplychain', [
        {
          pointer: '/documentDescribes',
          detail:
            'the SPDX SBOM describes no container image; say which with ?image=<reference>, or the repository it ' +
            'describes with ?repo=<repository>',
        },
      ]);
    }
    if ('bomFormat' in body) {
      const sbom = checkSbom(body);
      const described = image ?? sbomImage(sbom)?.raw;
      if (described)
        return { image: described, sbom, pointer: image ? '/query/image' : '/metadata/component' };
      // Not an image's: the repository's named by ?repo=, or by the URL a `trivy repo` scan names it with.
      const repository = query.repo?.trim() || repositoryFromUrl(sbom.metadata?.component?.name);
      if (repository) return { sbom, repository, pointer: '/query/repo' };
      throw reportProblem('supplychain', [
        {
          pointer: '/metadata/component',
          detail:
            'the SBOM names no container image; say which with ?image=<reference>, or the repository it ' +
            'describes with ?repo=<repository>',
        },
      ]);
    }
    if (isProvenanceDocument(body)) return { image, provenance: body, pointer: '/query/image' };
  }
  return { ...checkReport(body), pointer: '/image' };
}

function provenanceOf(report: Read): Provenance {
  try {
    return readProvenance(report.provenance, report.pointer === '/image' ? '/provenance' : '');
  } catch (error) {
    if (error instanceof ProvenanceError) throw reportProblem('supplychain', error.errors);
    throw error;
  }
}

/** An attested CycloneDX document, checked as a posted one is; its errors point into the attestation. */
function attestedSbom(
  document: unknown,
  pointer: string,
  checkSbom: (body: unknown) => CdxDocument,
): CdxDocument {
  try {
    return checkSbom(document);
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    const errors = ((error.problem.errors as FieldError[] | undefined) ?? []).map((e) => ({
      ...e,
      pointer: `${pointer}${e.pointer === '/' ? '' : e.pointer}`,
    }));
    throw reportProblem('supplychain', errors);
  }
}

function imageRef(image: string, pointer: string): ImageRef {
  const ref = parseImageRef(image);
  if (ref) return ref;
  const error: FieldError = {
    pointer,
    value: image,
    detail: 'not an image reference (registry/name:tag or name@sha256:...)',
  };
  throw reportProblem('supplychain', [error]);
}

/** A reference to an image: the graph writer joins it to the scanned image (docs/identity.md). */
function addImage(out: EnvelopeBuilder, ref: ImageRef): string {
  return out.node('Image', ref.canonical, {
    image_ref: ref.raw,
    registry: ref.registry,
    digests: ref.digest ? [ref.digest] : undefined,
    resolve_ref: ref.raw,
  });
}

/** A provenance subject: an image (docker/oci purl, or a registry reference), a package purl, or a file. */
function addSubject(out: EnvelopeBuilder, named: { name: string; digest?: string }, p: Provenance): string {
  // PyPI attests a distribution file (`rfc8785-0.1.2-py3-none-any.whl`): the package it is, as scans name it.
  const pypi = p.format === 'pypi-attestation' || p.format === 'pypi-provenance';
  const purl = pypi ? pypiDistributionPurl(named.name) : undefined;
  const subject = purl ? { ...named, name: purl } : named;
  const purlImage = ociPurlImage(subject.name);
  // Google Cloud Build names its image subjects as URLs (`https://<region>-docker.pkg.dev/<path>:<tag>`).
  const plain = subject.name.startsWith('pkg:')
    ? undefined
    : parseImageRef(subject.name.replace(/^https?:\/\//, ''));
  const container = /container|docker|buildkit|oci/i.test(`${p.buildType ?? ''} ${p.builder ?? ''}`);
  const image = purlImage ?? (plain && (plain.registry !== undefined || container) ? plain : undefined);
  if (image) {
    const pinned = subject.digest && !image.digest ? parseImageRef(`${image.raw}@${subject.digest}`) : image;
    return addImage(out, pinned ?? image);
  }
  if (subject.name.startsWith('pkg:')) {
    const ref = packageRef({ name: subject.name, purl: subject.name });
    if (ref)
      return out.node(ref.label, ref.name, {
        purl: ref.purl,
        ecosystem: ref.ecosystem,
        digest: subject.digest,
      });
  }
  return out.node('Package', subject.name, { digest: subject.digest });
}

/**
 * A signed blob the bundle names only by digest, with no `?image=` to say which artifact it is: nothing is
 * stamped (a node named by a bare digest would join nothing), and the warning says what was signed, by whom.
 */
function unnamedBlob(p: Provenance): string {
  const by = p.signer?.identity
    ? `, signed by ${p.signer.identity}${p.signer.issuer ? ` (issuer ${p.signer.issuer})` : ''}`
    : '';
  return (
    `supplychain report: the Sigstore bundle signs a blob (messageSignature over ${p.blob?.digest ?? 'a digest it does not give'}${by}) and does not ` +
    'name the artifact: nothing is stamped; send it with ?image=<reference> naming the image it signs'
  );
}

/** Why a verification summary gives no level, or undefined when it gives one. */
function vsaProblem(vsa: VerificationSummary): string | undefined {
  if (vsa.result !== 'PASSED') return `says verificationResult ${vsa.result ?? '(none)'}, not PASSED`;
  if (vsa.buildLevel === undefined)
    return `names no SLSA_BUILD_LEVEL_<n> among its verifiedLevels (${vsa.levels.join(', ') || 'none'})`;
  return undefined;
}

function componentsOf(sbom: CdxDocument | ComponentEntry[]): SbomPackage[] {
  if (!Array.isArray(sbom)) return sbomPackages(sbom);
  const found = new Map<string, SbomPackage>();
  for (const entry of sbom) {
    const ref = packageRef(entry);
    if (ref && !found.has(ref.name))
      found.set(ref.name, { ...ref, packageName: entry.name, version: entry.version });
  }
  return [...found.values()];
}

/**
 * The SLSA build level: as declared, else derived from the provenance: signed by an SLSA3 builder 3,
 * signed 2, unsigned 1 (docs/identity.md). No provenance and no declaration: no level.
 */
export function slsaLevel(
  declared: number | undefined,
  signed: boolean | undefined,
  builder: string | undefined,
  provenance: Provenance | undefined,
): { level: number; basis: string } | undefined {
  if (declared !== undefined) return { level: declared, basis: 'declared' };
  // A verifier's summary that it PASSED at a build level: that level, as a declared one is taken.
  if (provenance?.vsa)
    return vsaProblem(provenance.vsa) === undefined && provenance.vsa.buildLevel !== undefined
      ? { level: provenance.vsa.buildLevel, basis: 'vsa' }
      : undefined;
  // Only build provenance says how an artifact was built: a signed SBOM or scan attestation is no level.
  if (!provenance?.slsa) return undefined;
  if (signed && builder && SLSA3_BUILDER.test(builder)) return { level: 3, basis: 'slsa3-builder' };
  if (signed) return { level: 2, basis: 'signed-provenance' };
  return { level: 1, basis: 'provenance' };
}

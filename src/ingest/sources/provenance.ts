// Reading build provenance for the supply-chain source, in the shapes real tools publish it: an in-toto
// Statement (v0.1 or v1) carrying SLSA provenance v0.2 or v1 or a SLSA verification summary (VSA), a DSSE
// envelope around one, a Sigstore bundle (v0.1-v0.3: `dsseEnvelope`, or `messageSignature` over a blob), PyPI's
// PEP 740 attestations (one, or the integrity API's provenance object) and the npm registry's attestations
// document (a list of bundles). What it yields: the subjects, the builder, the source repository and commit,
// whether it was signed and by whom (the Fulcio certificate's identity and issuer).
// `signed` here is "a signature is present"; whether it verifies is src/ingest/signatures/ (docs/identity.md).
import type { FieldError } from '../envelope.js';
import { signerIdentity, type SignerIdentity } from './signer-identity.js';

export interface Subject {
  name: string;
  /** `sha256:<hex>` when the subject has a sha256 digest */
  digest?: string;
}

export interface Provenance {
  format:
    | 'in-toto-statement'
    | 'dsse-envelope'
    | 'sigstore-bundle'
    | 'npm-attestations'
    | 'gcb-provenance'
    | 'pypi-attestation'
    | 'pypi-provenance';
  predicateTypes: string[];
  subjects: Subject[];
  builder?: string;
  buildType?: string;
  /** `host/owner/name` of the source repository (scheme, `git+`, `.git` and refs dropped) */
  sourceRepo?: string;
  sourceUri?: string;
  commit?: string;
  /** the document carries at least one signature (present; src/ingest/signatures/ says whether it verifies) */
  signed: boolean;
  /**
   * Whether a statement carries SLSA build provenance: an attestation of another kind (an SBOM, a
   * vulnerability scan, cosign's generic predicate) names a subject and may be signed, but says nothing
   * about how it was built, so no SLSA level is derived from it.
   */
  slsa: boolean;
  /** A CycloneDX SBOM attested about the subjects (`cosign attest --type cyclonedx`), with its pointer. */
  sbom?: { document: unknown; pointer: string };
  /** An SPDX JSON SBOM attested about the subjects (`cosign attest --type spdxjson`). */
  spdx?: { document: Json; pointer: string };
  /** The predicate type of an SBOM attestation pathgate does not read (SPDX that is not JSON). */
  unreadSbom?: string;
  /**
   * A Sigstore bundle's `messageSignature` signs a blob it does not name, only its digest (`cosign sign-blob
   * --bundle`, `sigstore sign`): its digest, `sha256:<hex>` (`sha384:`, `sha512:` for the other algorithms),
   * when the bundle gives one (`messageDigest` is optional in the bundle format).
   */
  blob?: { digest?: string };
  /** Who signed it, from the bundle's (or PEP 740 attestation's) Fulcio certificate. */
  signer?: SignerIdentity;
  /** A SLSA verification summary (`https://slsa.dev/verification_summary/v1`): what a verifier found. */
  vsa?: VerificationSummary;
}

export interface VerificationSummary {
  /** `verifier.id` */
  verifier?: string;
  /** `verificationResult`: `PASSED` or `FAILED` */
  result?: string;
  /** `verifiedLevels` as written (`SLSA_BUILD_LEVEL_3`, `BCID_L1`, ...) */
  levels: string[];
  /** the highest `SLSA_BUILD_LEVEL_<n>` of `verifiedLevels` */
  buildLevel?: number;
  /** `resourceUri`: the resource the verified artifact is */
  resource?: string;
}

export class ProvenanceError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors[0]?.detail ?? 'invalid provenance');
  }
}

const IN_TOTO_PAYLOAD = 'application/vnd.in-toto+json';
const VSA_PREDICATE = 'https://slsa.dev/verification_summary/v1';

/** CycloneDX and SPDX predicate types, as the in-toto attestation framework and cosign write them. */
const CYCLONEDX_PREDICATE = /^https:\/\/cyclonedx\.org\/(?:bom|schema)/;
const SPDX_PREDICATE = /^https:\/\/spdx\.dev\/Document/;

type Json = Record<string, unknown>;

/** True when `value` looks like one of the provenance shapes (so a caller can tell it from an SBOM). */
export function isProvenanceDocument(value: unknown): boolean {
  if (!isObject(value)) return false;
  return (
    typeof value._type === 'string' ||
    typeof value.payloadType === 'string' ||
    isObject(value.dsseEnvelope) ||
    isObject(value.messageSignature) ||
    Array.isArray(value.attestations) ||
    isGcbProvenance(value) ||
    isPypiAttestation(value) ||
    isPypiProvenance(value)
  );
}

/** One PEP 740 attestation: `{version, verification_material, envelope: {statement, signature}}`. */
export function isPypiAttestation(value: unknown): boolean {
  return isObject(value) && isObject(value.verification_material) && isObject(value.envelope);
}

/** PyPI's integrity API provenance object: `{version, attestation_bundles: [{publisher, attestations}]}`. */
export function isPypiProvenance(value: unknown): boolean {
  return isObject(value) && Array.isArray(value.attestation_bundles);
}

/**
 * Google Cloud Build's provenance as gcloud prints it (`gcloud artifacts docker images describe
 * --show-provenance --format json`): `image_summary` and `provenance_summary.provenance[].envelope`.
 */
export function isGcbProvenance(value: unknown): boolean {
  return isObject(value) && Array.isArray(object(value.provenance_summary).provenance);
}

/** Reads any provenance shape; throws ProvenanceError naming the offending pointer (under `at`). */
export function readProvenance(value: unknown, at = ''): Provenance {
  if (!isObject(value)) throw fail(at || '/', value, 'not a provenance document');
  if (Array.isArray(value.attestations)) return readNpmAttestations(value.attestations, `${at}/attestations`);
  if (isGcbProvenance(value))
    return readGcbProvenance(object(value.provenance_summary), `${at}/provenance_summary`);
  if (isPypiProvenance(value)) return readPypiProvenance(value.attestation_bundles as unknown[], at);
  if (isPypiAttestation(value)) return readPypiAttestation(value, at);
  if (isObject(value.dsseEnvelope)) {
    const inner = readDsse(value.dsseEnvelope, `${at}/dsseEnvelope`);
    return withSigner({ ...inner, format: 'sigstore-bundle' }, bundleCertificate(value));
  }
  if (isObject(value.messageSignature))
    return withSigner(
      readMessageSignature(value.messageSignature, `${at}/messageSignature`),
      bundleCertificate(value),
    );
  if (typeof value.payloadType === 'string') return readDsse(value, at);
  if (typeof value._type === 'string') return readStatement(value, at, false, 'in-toto-statement');
  throw fail(
    at || '/',
    undefined,
    'not a provenance document: expected an in-toto statement (_type), a DSSE envelope (payloadType), ' +
      'a Sigstore bundle (dsseEnvelope or messageSignature), a PEP 740 attestation (envelope, ' +
      'verification_material) or npm attestations (attestations)',
  );
}

/** The signer named by a certificate, when there is one to read (a key-signed bundle names none). */
function withSigner(p: Provenance, certificate: string | undefined): Provenance {
  const signer = certificate ? signerIdentity(certificate) : undefined;
  return signer ? { ...p, signer } : p;
}

/** The leaf certificate of a bundle: v0.3's `certificate`, or the first of v0.1/v0.2's chain. */
function bundleCertificate(bundle: Json): string | undefined {
  const material = object(bundle.verificationMaterial);
  const chain = object(material.x509CertificateChain).certificates;
  const leaf =
    object(material.certificate).rawBytes ?? (Array.isArray(chain) ? object(chain[0]).rawBytes : undefined);
  return string(leaf);
}

/** Sigstore's hash algorithm names (`HashAlgorithm` in protobuf-specs) as digest prefixes. */
const MESSAGE_DIGEST_ALGORITHMS: Record<string, string> = {
  SHA2_256: 'sha256',
  SHA2_384: 'sha384',
  SHA2_512: 'sha512',
};

/**
 * A bundle's `messageSignature`: a signature over a blob the bundle knows only by digest. It is signed
 * evidence about whatever artifact that digest names; the bundle names no subject, so the caller says which.
 */
function readMessageSignature(signature: Json, at: string): Provenance {
  const read = (blob: { digest?: string }): Provenance => ({
    format: 'sigstore-bundle',
    predicateTypes: [],
    subjects: [],
    blob,
    signed: typeof signature.signature === 'string' && signature.signature.length > 0,
    slsa: false,
  });
  // The bundle format makes the digest optional: still a signature, over a blob named by nothing.
  if (signature.messageDigest === undefined) return read({});
  const digest = object(signature.messageDigest);
  const algorithm =
    typeof digest.algorithm === 'string' ? MESSAGE_DIGEST_ALGORITHMS[digest.algorithm] : undefined;
  if (!algorithm)
    throw fail(
      `${at}/messageDigest/algorithm`,
      digest.algorithm,
      `expected one of ${Object.keys(MESSAGE_DIGEST_ALGORITHMS).join(', ')}`,
    );
  const bytes = typeof digest.digest === 'string' ? Buffer.from(digest.digest, 'base64') : Buffer.alloc(0);
  if (bytes.length * 8 !== Number(algorithm.slice(3)))
    throw fail(
      `${at}/messageDigest/digest`,
      undefined,
      `expected the base64 ${algorithm} digest of the signed blob`,
    );
  return read({ digest: `${algorithm}:${bytes.toString('hex')}` });
}

/** A PEP 740 attestation: the in-toto statement it carries, signed over as DSSE, and its Fulcio certificate. */
function readPypiAttestation(attestation: Json, at: string): Provenance {
  if (attestation.version !== 1)
    throw fail(
      `${at}/version`,
      attestation.version,
      'a PEP 740 attestation of version 1 is read; this version is not',
    );
  const envelope = object(attestation.envelope);
  if (typeof envelope.statement !== 'string' || !envelope.statement)
    throw fail(`${at}/envelope/statement`, undefined, 'expected the base64 in-toto statement');
  let statement: unknown;
  try {
    statement = JSON.parse(Buffer.from(envelope.statement, 'base64').toString('utf8'));
  } catch {
    throw fail(`${at}/envelope/statement`, undefined, 'not base64-encoded JSON');
  }
  if (!isObject(statement))
    throw fail(`${at}/envelope/statement`, undefined, 'the decoded statement is not an object');
  const signed = typeof envelope.signature === 'string' && envelope.signature.length > 0;
  const read = readStatement(statement, `${at}/envelope/statement`, signed, 'pypi-attestation');
  return withSigner(read, string(object(attestation.verification_material).certificate));
}

/**
 * PyPI's provenance object (`GET /integrity/<project>/<version>/<file>/provenance`): each bundle's
 * attestations, read as one; the Trusted Publisher's repository is the source when no statement names one.
 */
function readPypiProvenance(bundles: unknown[], at: string): Provenance {
  let publisherRepo: string | undefined;
  const read = bundles.flatMap((bundle, index) => {
    const pointer = `${at}/attestation_bundles/${index}`;
    if (!isObject(bundle) || !Array.isArray(bundle.attestations))
      throw fail(pointer, bundle, 'an attestation bundle needs its attestations');
    publisherRepo ??= publisherRepository(object(bundle.publisher));
    return bundle.attestations.map((a, i) => readProvenance(a, `${pointer}/attestations/${i}`));
  });
  if (!read.length) throw fail(`${at}/attestation_bundles`, undefined, 'no attestations');
  const combined = combine(read, 'pypi-provenance');
  return combined.sourceRepo || !publisherRepo ? combined : { ...combined, sourceRepo: publisherRepo };
}

/**
 * The package a PyPI distribution file is (PEP 427 wheel `{name}-{version}(-{build})?-{py}-{abi}-{platform}.whl`,
 * PEP 625 sdist `{name}-{version}.tar.gz`) as a purl, so an attestation's subject meets the library a scan
 * names (`pkg:pypi/<name>@<version>`, the name compared as PEP 503 does); undefined for any other file name.
 */
export function pypiDistributionPurl(filename: string): string | undefined {
  const wheel = /^([^-/]+)-([^-/]+)(?:-\d[^-/]*)?-[^-/]+-[^-/]+-[^-/]+\.whl$/.exec(filename);
  const sdist = /^([^/]+)-([^-/]+)\.(?:tar\.gz|zip)$/.exec(filename);
  const [, name, version] = wheel ?? sdist ?? [];
  return name && version ? `pkg:pypi/${name}@${version}` : undefined;
}

/** A Trusted Publisher's repository (`{kind: GitHub, repository: owner/name}`; GitLab's `namespace/project`). */
function publisherRepository(publisher: Json): string | undefined {
  const host = { GitHub: 'github.com', GitLab: 'gitlab.com' }[string(publisher.kind) ?? ''];
  const repository = string(publisher.repository);
  return host && repository ? `${host}/${repository}` : undefined;
}

function readNpmAttestations(list: unknown[], at: string): Provenance {
  const read = list.map((entry, index) => {
    const pointer = `${at}/${index}`;
    if (!isObject(entry) || !isObject(entry.bundle))
      throw fail(pointer, entry, 'an attestation needs a bundle');
    return readProvenance(entry.bundle, `${pointer}/bundle`);
  });
  if (!read.length) throw fail(at, list, 'no attestations');
  return combine(read, 'npm-attestations');
}

/** Several statements about the same artifacts, read as one. */
function combine(read: Provenance[], format: Provenance['format']): Provenance {
  // The SLSA provenance attestation names the builder and source; the publish attestation only the package.
  const provenance = read.find((p) => p.builder !== undefined || p.sourceRepo !== undefined) ?? read[0];
  const subjects = new Map<string, Subject>();
  for (const p of read) for (const s of p.subjects) subjects.set(`${s.name}|${s.digest ?? ''}`, s);
  return {
    ...provenance,
    format,
    predicateTypes: [...new Set(read.flatMap((p) => p.predicateTypes))],
    subjects: [...subjects.values()],
    signed: read.some((p) => p.signed),
    slsa: read.some((p) => p.slsa),
    signer: provenance.signer ?? read.find((p) => p.signer)?.signer,
  };
}

function readGcbProvenance(summary: Json, at: string): Provenance {
  const list = summary.provenance as unknown[];
  const read = list.map((entry, index) => {
    const pointer = `${at}/provenance/${index}`;
    if (!isObject(entry) || !isObject(entry.envelope))
      throw fail(pointer, entry, 'a provenance entry needs its DSSE envelope');
    return readDsse(entry.envelope, `${pointer}/envelope`);
  });
  if (!read.length) throw fail(`${at}/provenance`, list, 'no provenance');
  return combine(read, 'gcb-provenance');
}

function readDsse(envelope: Json, at: string): Provenance {
  if (envelope.payloadType !== IN_TOTO_PAYLOAD)
    throw fail(`${at}/payloadType`, envelope.payloadType, `expected ${IN_TOTO_PAYLOAD}`);
  if (typeof envelope.payload !== 'string' || !envelope.payload)
    throw fail(`${at}/payload`, undefined, 'expected the base64 in-toto statement');
  let statement: unknown;
  try {
    statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
  } catch {
    throw fail(`${at}/payload`, undefined, 'not base64-encoded JSON');
  }
  const signatures = Array.isArray(envelope.signatures) ? envelope.signatures : [];
  const signed = signatures.some((s) => isObject(s) && typeof s.sig === 'string' && s.sig.length > 0);
  if (!isObject(statement)) throw fail(`${at}/payload`, undefined, 'the decoded payload is not an object');
  return readStatement(statement, `${at}/payload`, signed, 'dsse-envelope');
}

function readStatement(
  statement: Json,
  at: string,
  signed: boolean,
  format: Provenance['format'],
): Provenance {
  const type = statement._type;
  if (typeof type !== 'string' || !/^https:\/\/in-toto\.io\/Statement\/v[0-9.]+$/.test(type))
    throw fail(`${at}/_type`, type, 'not an in-toto statement type (https://in-toto.io/Statement/v1)');
  if (!Array.isArray(statement.subject) || !statement.subject.length)
    throw fail(`${at}/subject`, undefined, 'an in-toto statement names at least one subject');
  const subjects = statement.subject.map((s, index) => {
    if (!isObject(s) || typeof s.name !== 'string')
      throw fail(`${at}/subject/${index}/name`, undefined, 'a subject needs a name');
    const sha256 = isObject(s.digest) && typeof s.digest.sha256 === 'string' ? s.digest.sha256 : undefined;
    return { name: s.name, digest: sha256 ? `sha256:${sha256.toLowerCase()}` : undefined };
  });
  const predicateType = typeof statement.predicateType === 'string' ? statement.predicateType : undefined;
  const predicate = isObject(statement.predicate) ? statement.predicate : {};
  const slsa = predicateType?.startsWith('https://slsa.dev/provenance/') ?? false;
  const facts = slsa ? readSlsa(predicate) : {};
  const vsa = predicateType === VSA_PREDICATE ? readVsa(predicate) : undefined;
  return {
    format,
    predicateTypes: predicateType ? [predicateType] : [],
    // A VSA may name its subject `_` (no meaningful name): the resource it verified names it instead.
    subjects: vsa?.resource
      ? subjects.map((s) =>
          // `oci://` / `docker://` name an image: the reference alone, as subjects name images.
          isUnnamed(s.name) ? { ...s, name: vsa.resource!.replace(/^(?:oci|docker):\/\//, '') } : s,
        )
      : subjects,
    ...(vsa && { vsa }),
    signed,
    slsa,
    ...facts,
    ...(predicateType && CYCLONEDX_PREDICATE.test(predicateType) && { sbom: attestedBom(predicate, at) }),
    ...(predicateType && SPDX_PREDICATE.test(predicateType) && attestedSpdx(predicate, at, predicateType)),
  };
}

/** An SPDX attestation's document when it is SPDX JSON (itself, or in cosign's wrapper); else said unread. */
function attestedSpdx(
  predicate: Json,
  at: string,
  predicateType: string,
): { spdx: { document: Json; pointer: string } } | { unreadSbom: string } {
  try {
    const { document, pointer } = attestedBom(predicate, at);
    if (isObject(document) && typeof document.spdxVersion === 'string')
      return { spdx: { document, pointer } };
  } catch {
    // tag-value SPDX in the wrapper: not JSON
  }
  return { unreadSbom: predicateType };
}

/**
 * The CycloneDX document of an SBOM attestation: the predicate itself, or cosign's older wrapper
 * `{Data: <the document, or it as a JSON string>, Timestamp}`.
 */
function attestedBom(predicate: Json, at: string): { document: unknown; pointer: string } {
  if (!('Data' in predicate) || 'bomFormat' in predicate)
    return { document: predicate, pointer: `${at}/predicate` };
  let data = predicate.Data;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      throw fail(`${at}/predicate/Data`, undefined, 'the attested SBOM is not JSON');
    }
  }
  return { document: data, pointer: `${at}/predicate/Data` };
}

function isUnnamed(name: string): boolean {
  return name.trim() === '' || name.trim() === '_';
}

/** A SLSA verification summary v1: the verifier, its result and the levels it found. */
function readVsa(predicate: Json): VerificationSummary {
  const levels = (Array.isArray(predicate.verifiedLevels) ? predicate.verifiedLevels : []).filter(
    (l): l is string => typeof l === 'string',
  );
  const build = levels
    .map((l) => /^SLSA_BUILD_LEVEL_(\d)$/.exec(l.trim())?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  return {
    verifier: string(object(predicate.verifier).id),
    result: string(predicate.verificationResult),
    levels,
    buildLevel: build.length ? Math.max(...build) : undefined,
    resource: string(predicate.resourceUri),
  };
}

/** SLSA provenance v0.1/v0.2 (`builder`, `invocation`, `materials`) and v1 (`buildDefinition`, `runDetails`). */
function readSlsa(predicate: Json): Partial<Provenance> {
  const buildDefinition = object(predicate.buildDefinition);
  const builder =
    string(object(predicate.builder).id) ?? string(object(object(predicate.runDetails).builder).id);
  const buildType = string(predicate.buildType) ?? string(buildDefinition.buildType);
  const workflow = object(object(buildDefinition.externalParameters).workflow);
  const configSource = object(object(predicate.invocation).configSource);
  const dependencies = [
    ...(Array.isArray(buildDefinition.resolvedDependencies) ? buildDefinition.resolvedDependencies : []),
    ...(Array.isArray(predicate.materials) ? predicate.materials : []),
  ].filter(isObject);
  // Where the build read its source: the workflow's repository, the invocation's config source, or the
  // first git material.
  const gitMaterial = dependencies.find((d) => typeof d.uri === 'string' && isGitUri(d.uri));
  const sourceUri = string(workflow.repository) ?? string(configSource.uri) ?? string(gitMaterial?.uri);
  const sourceRepo = sourceUri ? repositoryOf(sourceUri) : undefined;
  const matching = dependencies.find(
    (d) => typeof d.uri === 'string' && sourceRepo !== undefined && repositoryOf(d.uri) === sourceRepo,
  );
  const commit =
    commitOf(configSource.digest) ??
    commitOf(matching?.digest) ??
    commitOf(gitMaterial?.digest) ??
    (sourceUri ? /(?:#|\/commit\/)([0-9a-f]{40})$/i.exec(sourceUri)?.[1] : undefined);
  return { builder, buildType, sourceRepo, sourceUri, commit: commit?.toLowerCase() };
}

function isGitUri(uri: string): boolean {
  return uri.startsWith('git+') || /\.git(?:[#@]|$)/.test(uri) || /^https:\/\/github\.com\//.test(uri);
}

/**
 * `git+https://github.com/o/r@refs/heads/main`, `https://github.com/o/r.git#<sha>` -> `github.com/o/r`:
 * the form the build source and the code scanner's `repo` use for the same repository.
 */
export function repositoryOf(uri: string): string | undefined {
  const stripped = uri
    .trim()
    .replace(/^git\+/, '')
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/^[^@/]+@/, '')
    .replace(/^([^/:]+):(?!\d)/, '$1/')
    .replace(/[#?].*$/, '')
    // a forge's page of one commit or ref (`github.com/o/r/commit/<sha>`, GitLab's `/-/tree/<ref>`)
    .replace(/\/(?:-\/)?(?:commit|tree)\/[^/]+$/, '')
    .replace(/@refs\/.*$/, '')
    .replace(/@[^/]*$/, '')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
  return /^[^/\s]+\/[^\s]+$/.test(stripped) ? stripped : undefined;
}

function commitOf(digest: unknown): string | undefined {
  if (!isObject(digest)) return undefined;
  const value = digest.gitCommit ?? digest.sha1;
  return typeof value === 'string' && /^[0-9a-f]{40}$/i.test(value) ? value : undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function object(value: unknown): Json {
  return isObject(value) ? value : {};
}

/** A non-empty string, else undefined (BuildKit writes `builder.id: ""`). */
function string(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

function fail(pointer: string, value: unknown, detail: string): ProvenanceError {
  const error: FieldError = { pointer, detail };
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) error.value = value;
  return new ProvenanceError([error]);
}

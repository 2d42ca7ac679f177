// Reading build provenance for the supply-chain source, in the shapes real tools publish it: an in-toto
// Statement (v0.1 or v1) carrying SLSA provenance v0.2 or v1, a DSSE envelope around one, a Sigstore bundle
// (v0.1-v0.3, `dsseEnvelope`) and the npm registry's attestations document (a list of bundles).
// What it yields: the subjects, the builder, the source repository and commit, and whether it was signed.
// Signatures are recorded as present, not verified: that needs the signer's trust root (docs/identity.md).
import type { FieldError } from '../envelope.js';

export interface Subject {
  name: string;
  /** `sha256:<hex>` when the subject has a sha256 digest */
  digest?: string;
}

export interface Provenance {
  format: 'in-toto-statement' | 'dsse-envelope' | 'sigstore-bundle' | 'npm-attestations' | 'gcb-provenance';
  predicateTypes: string[];
  subjects: Subject[];
  builder?: string;
  buildType?: string;
  /** `host/owner/name` of the source repository (scheme, `git+`, `.git` and refs dropped) */
  sourceRepo?: string;
  sourceUri?: string;
  commit?: string;
  /** the document carries at least one signature */
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
}

export class ProvenanceError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors[0]?.detail ?? 'invalid provenance');
  }
}

const IN_TOTO_PAYLOAD = 'application/vnd.in-toto+json';

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
    Array.isArray(value.attestations) ||
    isGcbProvenance(value)
  );
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
  if (isObject(value.dsseEnvelope)) {
    const inner = readDsse(value.dsseEnvelope, `${at}/dsseEnvelope`);
    return { ...inner, format: 'sigstore-bundle' };
  }
  if (typeof value.payloadType === 'string') return readDsse(value, at);
  if (typeof value._type === 'string') return readStatement(value, at, false, 'in-toto-statement');
  throw fail(
    at || '/',
    undefined,
    'not a provenance document: expected an in-toto statement (_type), a DSSE envelope (payloadType), ' +
      'a Sigstore bundle (dsseEnvelope) or npm attestations (attestations)',
  );
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
  return {
    format,
    predicateTypes: predicateType ? [predicateType] : [],
    subjects,
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

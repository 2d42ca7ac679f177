// What a signature on provenance is checked against (docs/identity.md, "Signatures"): offline, never the
// network. Sigstore bundles chain to a trusted root: by default the public-good instance's (Fulcio, Rekor,
// the CT log, the timestamp authority), read from the TUF seeds `@sigstore/tuf` ships (`seeds.json`, the
// signed TUF targets `trusted_root.json` and npm's `registry.npmjs.org/keys.json`), or the file
// SIGSTORE_TRUSTED_ROOT names (a private Sigstore, or a fresher root from `cosign trusted-root create` or a
// TUF client). Bundles signed with a key (a `publicKey` hint) and bare DSSE envelopes verify against the
// keys ATTESTATION_PUBLIC_KEYS gives (PEM public keys, as `cosign generate-key-pair` writes cosign.pub),
// and npm's registry attestation keys from the same seeds.
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { toTrustMaterial, Verifier, type TrustMaterial } from '@sigstore/verify';

/** A public key given in settings: the key, and the ids a signature may name it by. */
export interface ConfiguredKey {
  key: KeyObject;
  /** `sha256:<hex>` of the key's DER SubjectPublicKeyInfo (how the key is named in messages) */
  id: string;
  /** the forms a DSSE `keyid` or a bundle's `publicKey.hint` may take for this key */
  aliases: ReadonlySet<string>;
}

/** The trust settings, as read at start-up (src/config/signature-settings.ts). */
export interface SignatureTrustSettings {
  /** SIGSTORE_TRUSTED_ROOT: a trusted_root.json; unset: the public-good root `@sigstore/tuf` ships */
  trustedRootPath?: string;
  /** ATTESTATION_PUBLIC_KEYS: the keys DSSE envelopes and key-signed bundles verify against */
  keys: readonly ConfiguredKey[];
}

export interface SignatureTrust {
  /** where the Sigstore trust root came from, for messages: `public-good (@sigstore/tuf seeds)` or the path */
  rootSource: string;
  keys: readonly ConfiguredKey[];
  /** checks a Sigstore bundle: certificate chain, transparency log entry, signed timestamp, signature */
  verifier: Verifier;
}

const PUBLIC_GOOD_TUF = 'https://tuf-repo-cdn.sigstore.dev';
const NPM_KEYS_TARGET = 'registry.npmjs.org%2Fkeys.json';

/** Reads PEM public keys (one or more `-----BEGIN PUBLIC KEY-----` blocks); throws naming the bad block. */
export function parsePublicKeys(pem: string): ConfiguredKey[] {
  const blocks = pem.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? [];
  if (!blocks.length) throw new Error('holds no PEM public key (-----BEGIN PUBLIC KEY-----)');
  return blocks.map((block, index) => {
    let key: KeyObject;
    try {
      key = createPublicKey(block);
    } catch {
      throw new Error(`public key ${index + 1} of ${blocks.length} is not a readable PEM public key`);
    }
    return configuredKey(key);
  });
}

function configuredKey(key: KeyObject): ConfiguredKey {
  const der = key.export({ type: 'spki', format: 'der' });
  const digest = createHash('sha256').update(der).digest();
  const id = `sha256:${digest.toString('hex')}`;
  // cosign and sigstore-js name a key by its SPKI SHA-256 (hex, base64, npm's `SHA256:<base64 unpadded>`).
  const aliases = new Set([
    id,
    digest.toString('hex'),
    digest.toString('base64'),
    `SHA256:${digest.toString('base64').replace(/=+$/, '')}`,
  ]);
  return { key, id, aliases };
}

/** The trust a deployment's settings give; the root is read once, here (no network, no TUF refresh). */
export function loadSignatureTrust(settings: SignatureTrustSettings = { keys: [] }): SignatureTrust {
  const seeds = publicGoodSeeds();
  const rootJson = settings.trustedRootPath
    ? readJsonFile(settings.trustedRootPath)
    : JSON.parse(Buffer.from(seeds.targets['trusted_root.json'], 'base64').toString('utf8'));
  const root = TrustedRoot.fromJSON(rootJson);
  const npmKeys = npmAttestationKeys(seeds.targets[NPM_KEYS_TARGET]);
  const material: TrustMaterial = toTrustMaterial(root, (hint) => {
    const given = settings.keys.find((k) => k.aliases.has(hint));
    if (given) return { publicKey: given.key, validFor: () => true };
    const npm = npmKeys.get(hint);
    if (npm) return npm;
    throw new Error(`no public key named ${hint} in ATTESTATION_PUBLIC_KEYS or npm's registry keys`);
  });
  return {
    rootSource: settings.trustedRootPath ?? 'public-good (@sigstore/tuf seeds)',
    keys: settings.keys,
    // One entry in a transparency log, a certificate logged in CT, and a trusted time (the log's, or a
    // timestamp authority's) for each bundle: what `cosign verify` asks by default.
    verifier: new Verifier(material, { tlogThreshold: 1, ctlogThreshold: 1, timestampThreshold: 1 }),
  };
}

/** Checks a trusted_root.json at start-up: a bad file stops the start naming the setting. */
export function checkTrustedRoot(path: string): void {
  const json = readJsonFile(path);
  const root = TrustedRoot.fromJSON(json);
  if (!root.tlogs.length || !root.certificateAuthorities.length)
    throw new Error('is not a Sigstore trusted root (no tlogs or certificateAuthorities)');
}

function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error('is not JSON');
  }
}

interface Seeds {
  targets: Record<string, string>;
}

let seedsCache: Seeds | undefined;

/** The public-good TUF repository's seeded targets, as `@sigstore/tuf` ships them (read once). */
function publicGoodSeeds(): Seeds {
  if (seedsCache) return seedsCache;
  const file = createRequire(import.meta.url).resolve('@sigstore/tuf/seeds.json');
  const all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Seeds>;
  const seeds = all[PUBLIC_GOOD_TUF];
  if (!seeds?.targets?.['trusted_root.json'])
    throw new Error(`@sigstore/tuf/seeds.json holds no trusted_root.json for ${PUBLIC_GOOD_TUF}`);
  seedsCache = seeds;
  return seeds;
}

interface NpmKey {
  keyId: string;
  keyUsage: string;
  publicKey: { rawBytes: string; validFor: { start: string; end?: string } };
}

/** npm's keys for its publish attestations (`keyUsage: npm:attestations`), each valid for its window. */
function npmAttestationKeys(base64: string | undefined) {
  const found = new Map<string, { publicKey: KeyObject; validFor: (date: Date) => boolean }>();
  if (!base64) return found;
  const { keys } = JSON.parse(Buffer.from(base64, 'base64').toString('utf8')) as { keys: NpmKey[] };
  for (const k of keys) {
    if (k.keyUsage !== 'npm:attestations') continue;
    const start = new Date(k.publicKey.validFor.start).getTime();
    const end = k.publicKey.validFor.end ? new Date(k.publicKey.validFor.end).getTime() : Infinity;
    found.set(k.keyId, {
      publicKey: createPublicKey({
        key: Buffer.from(k.publicKey.rawBytes, 'base64'),
        format: 'der',
        type: 'spki',
      }),
      validFor: (date) => date.getTime() >= start && date.getTime() <= end,
    });
  }
  return found;
}

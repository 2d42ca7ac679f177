// Settings of provenance signature verification (docs/identity.md, "Signatures"), read apart from
// settings.ts (past its size): the Sigstore trust root and the public keys bare DSSE envelopes verify against.
import {
  checkTrustedRoot,
  parsePublicKeys,
  type SignatureTrustSettings,
} from '../ingest/signatures/trust.js';

export type SecretReader = (name: string) => string | undefined;

/** SIGSTORE_TRUSTED_ROOT, ATTESTATION_PUBLIC_KEYS (or `_FILE`); each bad value is a start-up problem. */
export function readSignatureSettings(
  env: Readonly<Record<string, string | undefined>>,
  readText: SecretReader,
  problems: string[],
  fallback: SignatureTrustSettings,
): SignatureTrustSettings {
  const settings: SignatureTrustSettings = { ...fallback };
  const root = env.SIGSTORE_TRUSTED_ROOT?.trim();
  if (root) {
    try {
      checkTrustedRoot(root);
      settings.trustedRootPath = root;
    } catch (error) {
      problems.push(`SIGSTORE_TRUSTED_ROOT=${JSON.stringify(root)} ${(error as Error).message}`);
    }
  }
  const pem = readText('ATTESTATION_PUBLIC_KEYS');
  if (pem?.trim()) {
    try {
      settings.keys = parsePublicKeys(pem);
    } catch (error) {
      // Public keys, but the value is not echoed: a private key pasted by mistake would be.
      problems.push(`ATTESTATION_PUBLIC_KEYS ${(error as Error).message}`);
    }
  }
  return settings;
}

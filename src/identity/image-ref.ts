// Image references as the identity rules of the spec read them: the registry host is stripped
// (`ghcr.io/acme/app:1.2` is `acme/app:1.2`) and Docker Hub's `library/` is normalized (`docker.io/library/
// alpine:3.10` is `alpine:3.10`). Anything more exotic must match exactly. docs/identity.md has the rules.

export interface ImageRef {
  /** The reference exactly as the report wrote it. */
  raw: string;
  /** Registry host when the reference names one (`ghcr.io`, `localhost:5000`), else undefined. */
  registry?: string;
  /** Repository path without registry, `library/` normalized, lowercased: `acme/app`, `alpine`. */
  repository: string;
  tag?: string;
  /** `sha256:<hex>` when the reference pins a digest. */
  digest?: string;
  /**
   * The name an Image node takes for this reference: `repository:tag` when tagged, `repository@digest`
   * when only digest-pinned, else the bare repository.
   */
  canonical: string;
}

const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-f0-9]{32,}$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;

/** Parses an image reference; undefined when it is not one (a file path, an empty string, an image ID). */
export function parseImageRef(input: string): ImageRef | undefined {
  const raw = input.trim();
  if (!raw || raw.length > 512 || /\s/.test(raw)) return undefined;
  let rest = raw;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1).toLowerCase();
    if (!DIGEST.test(digest)) return undefined;
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    if (!TAG.test(tag)) return undefined;
    rest = rest.slice(0, colon);
  }
  const parts = rest.split('/');
  let registry: string | undefined;
  // The first component is a registry host when it has a dot or a port, or is localhost (Docker's rule).
  if (parts.length > 1 && (/[.:]/.test(parts[0]) || parts[0] === 'localhost')) {
    registry = parts.shift()!.toLowerCase();
  }
  const components = parts.map((p) => p.toLowerCase());
  if (!components.length || !components.every((c) => PATH_COMPONENT.test(c))) return undefined;
  const dockerHub = registry === undefined || registry === 'docker.io' || registry === 'index.docker.io';
  if (dockerHub && components.length === 2 && components[0] === 'library') components.shift();
  const repository = components.join('/');
  const canonical =
    tag !== undefined ? `${repository}:${tag}` : digest ? `${repository}@${digest}` : repository;
  return { raw, registry, repository, tag, digest, canonical };
}

/** A bare image-ID reference (`sha256:<hex>` or 12-64 hex chars), as `docker save <id>` leaves it. */
export function isImageId(value: string): boolean {
  return /^(?:sha256:)?[a-f0-9]{12,64}$/i.test(value.trim());
}

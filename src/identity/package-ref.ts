// How a software package is named in the graph, whichever tool reported it: by its purl without
// qualifiers or subpath (`pkg:maven/org.springframework/spring-beans@5.3.15`), percent-escapes decoded
// (Trivy writes `11.1%2Bdeb11u5` where Syft writes `11.1+deb11u5`), so that an image scan and an SBOM of
// the same image meet on one node. Language packages are `Library` nodes; distribution packages
// (deb, rpm, apk, ...) are `Package` nodes. A package reported without a purl gets one built from its type.

export interface PackageRef {
  label: 'Library' | 'Package';
  /** The node name: the purl without qualifiers and subpath. */
  name: string;
  /** The purl as reported (qualifiers kept), or the one built for it. */
  purl: string;
  /** purl type: maven, npm, pypi, golang, deb, ... */
  ecosystem: string;
}

/** Trivy's and CycloneDX tools' package types -> purl types, for packages reported without a purl. */
const PURL_TYPE: Readonly<Record<string, string>> = {
  jar: 'maven',
  pom: 'maven',
  gradle: 'maven',
  'node-pkg': 'npm',
  yarn: 'npm',
  pnpm: 'npm',
  bun: 'npm',
  pip: 'pypi',
  pipenv: 'pypi',
  poetry: 'pypi',
  'python-pkg': 'pypi',
  uv: 'pypi',
  gobinary: 'golang',
  gomod: 'golang',
  go: 'golang',
  'rust-binary': 'cargo',
  bundler: 'gem',
  gemspec: 'gem',
  'dotnet-core': 'nuget',
  'packages-props': 'nuget',
  alpine: 'apk',
  debian: 'deb',
  ubuntu: 'deb',
  redhat: 'rpm',
  centos: 'rpm',
  rocky: 'rpm',
  alma: 'rpm',
  amazon: 'rpm',
  'cbl-mariner': 'rpm',
  photon: 'rpm',
  suse: 'rpm',
  oracle: 'rpm',
};

/** Operating-system package managers: their packages are `Package` nodes, not libraries. */
const DISTRIBUTION_TYPES = new Set(['deb', 'rpm', 'apk', 'alpm', 'ebuild', 'opkg', 'qpkg']);

/** CycloneDX component types: what a component is, not which ecosystem it comes from. */
const COMPONENT_TYPES = new Set([
  'application',
  'framework',
  'library',
  'container',
  'platform',
  'operating-system',
  'device',
  'device-driver',
  'firmware',
  'file',
  'machine-learning-model',
  'data',
  'cryptographic-asset',
]);

const PURL = /^pkg:([a-z][a-z0-9.+-]*)\/[^\s]+$/i;

export interface PackageFacts {
  name: string;
  version?: string;
  /** A purl type, or a tool's package type (`jar`, `gobinary`, `debian`, ...). */
  type?: string;
  purl?: string;
}

/** The graph name of a package; undefined when it has neither a usable purl nor a name. */
export function packageRef(facts: PackageFacts): PackageRef | undefined {
  const purl = facts.purl?.trim();
  const matched = purl ? PURL.exec(purl) : null;
  if (purl && matched) {
    const legacy = LEGACY_TYPES[matched[1].toLowerCase()];
    const decoded = decode(stripQualifiers(purl));
    const path = decoded.slice(decoded.indexOf('/') + 1);
    if (legacy)
      return {
        label: labelFor(legacy.type),
        name: canonicalName(legacy.type, `${legacy.namespace}/${path}`),
        purl,
        ecosystem: legacy.type,
      };
    const ecosystem = matched[1].toLowerCase();
    return { label: labelFor(ecosystem), name: canonicalName(ecosystem, path), purl, ecosystem };
  }
  const name = facts.name.trim();
  if (!name) return undefined;
  const type =
    facts.type && !COMPONENT_TYPES.has(facts.type.toLowerCase()) ? facts.type.toLowerCase() : undefined;
  const ecosystem =
    (type && (PURL_TYPE[type] ?? (/^[a-z][a-z0-9.+-]*$/.test(type) ? type : undefined))) || 'generic';
  // Maven coordinates are `group:artifact`; in a purl the group is the namespace.
  const path = ecosystem === 'maven' ? name.replace(':', '/') : name;
  const version = facts.version?.trim();
  const built = `pkg:${ecosystem}/${path}${version ? `@${version}` : ''}`;
  return {
    label: labelFor(ecosystem),
    name: canonicalName(ecosystem, `${path}${version ? `@${version}` : ''}`),
    purl: built,
    ecosystem,
  };
}

/**
 * How each purl type spells a name that its ecosystem treats as the same whatever the case or separators
 * (the purl specification's types/<type>-definition.json, `case_sensitive` and `normalization_rules`):
 * Grype writes `pkg:pypi/Django` where Trivy writes `pkg:pypi/django`, and both are PyPI's one `django`.
 * PyPI names are compared as PEP 503 does (lower case, runs of `-`, `_` and `.` one `-`), a superset of the
 * spec's rule (`_` is `-`). Types whose names are case-sensitive (npm, maven, golang, nuget, ...) are kept.
 */
const NAME_RULES: Readonly<Record<string, (namespace: string, name: string) => string>> = {
  pypi: (namespace, name) => namespace + name.toLowerCase().replace(/[-_.]+/g, '-'),
  composer: (namespace, name) => (namespace + name).toLowerCase(),
  deb: (namespace, name) => (namespace + name).toLowerCase(),
  apk: (namespace, name) => (namespace + name).toLowerCase(),
  hex: (namespace, name) => (namespace + name).toLowerCase(),
  github: (namespace, name) => (namespace + name).toLowerCase(),
  bitbucket: (namespace, name) => (namespace + name).toLowerCase(),
  rpm: (namespace, name) => namespace.toLowerCase() + name,
  pub: (namespace, name) => namespace + name.toLowerCase().replace(/[^a-z0-9]/g, '_'),
};

/** `pkg:<type>/<path>`, the path's namespace and name spelled as the type's rules say; the version kept. */
function canonicalName(type: string, path: string): string {
  const rule = NAME_RULES[type];
  if (!rule) return `pkg:${type}/${path}`;
  // No name of these types holds an `@`: the last one starts the version.
  const at = path.lastIndexOf('@');
  const head = at < 0 ? path : path.slice(0, at);
  const slash = head.lastIndexOf('/');
  return `pkg:${type}/${rule(head.slice(0, slash + 1), head.slice(slash + 1))}${at < 0 ? '' : path.slice(at)}`;
}

function labelFor(ecosystem: string): 'Library' | 'Package' {
  return DISTRIBUTION_TYPES.has(ecosystem) ? 'Package' : 'Library';
}

/**
 * purl types tools once wrote for what is now spelled otherwise: Syft before 0.60 named Alpine's packages
 * `pkg:alpine/<name>@<version>`, which the purl spec (and Trivy, and Syft since) write `pkg:apk/alpine/...`.
 */
const LEGACY_TYPES: Readonly<Record<string, { type: string; namespace: string }>> = {
  alpine: { type: 'apk', namespace: 'alpine' },
};

/** `pkg:npm/a@1?x=y#sub` -> `pkg:npm/a@1` */
function stripQualifiers(purl: string): string {
  return purl.replace(/[?#].*$/, '');
}

/** Percent-escapes decoded, so that tools that escape `+`, `@` or `:` and tools that do not name alike. */
function decode(purl: string): string {
  try {
    return decodeURIComponent(purl);
  } catch {
    return purl; // a stray `%`: kept as written
  }
}

// Where in a repository a route's resources are declared, as searches over its files: the Terraform
// resource block, the Kubernetes object's `name:`, the package in a dependency manifest, the Dockerfile's
// `FROM`. One set of rules for the Action's SARIF (over the checkout, app/gate-client.ts) and the App's
// comments and Check Run annotations (over the pull request's head commit, app/github/locate.ts).
import path from 'node:path';

export interface RouteOriginLike {
  terraform?: string[];
  kubernetes?: { kind?: string; name: string; namespace?: string }[];
  images?: string[];
  package?: string;
  code?: { path: string; line?: number; rule: string };
}

/** One resource a route comes from, named as a reviewer finds it in the repository. */
export interface ResourceSearch {
  /** `aws_security_group_rule.x`, `Deployment/shop/checkout`, `the Dockerfile FROM`, `lodash` */
  resource: string;
  kind: 'terraform' | 'kubernetes' | 'package' | 'image';
  /** which files may declare it */
  pick: (file: string) => boolean;
  /** the line that declares it */
  pattern: RegExp;
  why: string;
}

export const DEPENDENCY_MANIFESTS = [
  'package.json',
  'requirements.txt',
  'pom.xml',
  'build.gradle',
  'go.mod',
  'Gemfile',
  'Cargo.toml',
];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The searches for a route's origin, most specific first (the code finding is located by its scanner). */
export function resourceSearches(origin: RouteOriginLike | undefined): ResourceSearch[] {
  const out: ResourceSearch[] = [];
  for (const address of origin?.terraform ?? []) {
    const [type, name] = address
      .replace(/\[.*?\]$/, '')
      .split('.')
      .slice(-2);
    out.push({
      resource: address,
      kind: 'terraform',
      pick: (f) => f.endsWith('.tf'),
      pattern: new RegExp(`^\\s*resource\\s+"${escapeRegExp(type)}"\\s+"${escapeRegExp(name ?? '')}"`),
      why: `${address} is declared here`,
    });
  }
  for (const object of origin?.kubernetes ?? []) {
    const resource = [object.kind ?? 'object', object.namespace, object.name].filter(Boolean).join('/');
    out.push({
      resource,
      kind: 'kubernetes',
      pick: (f) => /\.ya?ml$/.test(f),
      pattern: new RegExp(`^\\s*name:\\s*["']?${escapeRegExp(object.name)}["']?\\s*$`),
      why: `${object.kind ?? 'object'} ${object.name} is declared here`,
    });
  }
  if (origin?.package) {
    const short = origin.package.split(/[:/]/).pop()!;
    out.push({
      resource: origin.package,
      kind: 'package',
      pick: (f) => DEPENDENCY_MANIFESTS.includes(path.posix.basename(f)),
      pattern: new RegExp(escapeRegExp(short)),
      why: `${origin.package} is declared here`,
    });
  }
  if (origin?.images?.length || origin?.package)
    out.push({
      resource: 'the Dockerfile FROM',
      kind: 'image',
      pick: (f) => /(^|\/)(Dockerfile|Containerfile)[^/]*$/.test(f),
      pattern: /^\s*FROM\s/i,
      why: `the image ${origin.images?.[0] ?? ''} is built here`.replace(/ {2}/, ' '),
    });
  return out;
}

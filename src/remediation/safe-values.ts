// The values a generated fix may carry, checked against their ecosystem's grammar before they go into a
// file, a branch or a pull request, and the escaping of the text around them. Every value comes from an
// ingested report, so it is the reporter's to choose: a package name that is a shell command
// (`openssl && curl …/x.sh | sh #`) must not reach a Dockerfile `RUN` line, a fixed version that is a git
// spec (`evilorg/lodash#4.17.21`) must not become a dependency. Each check answers why a value is refused
// (a sentence naming the value), or undefined when the value may be used. Grammars:
// - npm names: validate-npm-package-name; npm versions: semver, exact (`4.17.21`, no range, no `v`).
// - PyPI names: PEP 508 (`[A-Za-z0-9]`, then `._-`); PyPI versions: PEP 440 (@renovatebot/pep440).
// - Debian package names (policy §5.6.1) and versions (§5.6.12); Alpine (apk) names and versions; RPM
//   names and `[epoch:]version[-release]`.
// - Nothing that is a URL, a git, path, tarball or alias spec (`git+https:`, `github:`, `file:`, `npm:`,
//   `owner/repo#ref`, `./x.tgz`) is taken, whatever its ecosystem.
import { valid as pep440Valid } from '@renovatebot/pep440';
import semver from 'semver';
import validateNpmName from 'validate-npm-package-name';
import { capText } from '../http/problems.js';

/** Why a value may not go into a generated fix; undefined when it may. */
export type Refusal = string | undefined;

const quote = (value: string) => JSON.stringify(capText(value, 80));

/** The distribution family whose package tool the Dockerfile uses (as `bumpBaseImage` picks it). */
export type OsFamily = 'debian' | 'alpine' | 'rpm';
export function osFamily(os: string): OsFamily {
  if (/alpine/.test(os)) return 'alpine';
  if (/(rhel|centos|fedora|rocky|alma|amazon|oracle|redhat)/.test(os)) return 'rpm';
  return 'debian';
}

/** A URL, git, path, tarball or alias spec: never a package name or a version. */
export function specKind(value: string): string | undefined {
  if (/^(?:git\+|git:|git@|ssh:|https?:|ftp:)/i.test(value) || /:\/\//.test(value))
    return 'a URL or git spec';
  if (/^(?:github|gitlab|bitbucket|gist):/i.test(value)) return 'a hosted git spec';
  if (/^(?:file|link|portal|workspace|patch|npm|jsr|catalog):/i.test(value)) return 'a path or alias spec';
  if (/^[./~\\]/.test(value) || /\.(?:tgz|tar|tar\.gz|zip|whl)$/i.test(value)) return 'a path or tarball';
  if (/#/.test(value)) return 'a git ref spec (`#`)';
  return undefined;
}

function notSpec(what: string, value: string): Refusal {
  const kind = specKind(value);
  return kind && `${what} ${quote(value)} is ${kind}, not a registry ${what}`;
}

export function npmName(name: string): Refusal {
  const spec = notSpec('package name', name);
  if (spec) return spec;
  const checked = validateNpmName(name);
  if (!checked.validForNewPackages && !checked.validForOldPackages)
    return `package name ${quote(name)} is not an npm package name (${[...(checked.errors ?? [])].join('; ')})`;
  return undefined;
}

export function npmVersion(version: string): Refusal {
  const spec = notSpec('version', version);
  if (spec) return spec;
  if (semver.valid(version) !== version)
    return `version ${quote(version)} is not an exact semver version (like 4.17.21)`;
  return undefined;
}

export function pypiName(name: string): Refusal {
  const spec = notSpec('package name', name);
  if (spec) return spec;
  if (name.length > 200 || !/^(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])$/.test(name))
    return `package name ${quote(name)} is not a PyPI project name (PEP 508: letters, digits, ., _ and -)`;
  return undefined;
}

export function pypiVersion(version: string): Refusal {
  const spec = notSpec('version', version);
  if (spec) return spec;
  // PEP 440 allows surrounding whitespace and a `v`; a requirements line takes only the bare form.
  if (!/^[A-Za-z0-9.!+_-]{1,100}$/.test(version) || pep440Valid(version) === null)
    return `version ${quote(version)} is not a PEP 440 version (like 2.31.0)`;
  return undefined;
}

const OS_NAMES: Record<OsFamily, { pattern: RegExp; grammar: string }> = {
  // Policy §5.6.1: at least two characters, lowercase letters, digits, + - ., starting alphanumeric.
  debian: { pattern: /^[a-z0-9][a-z0-9+.-]+$/, grammar: 'a Debian package name' },
  alpine: { pattern: /^[a-z0-9][a-z0-9+._-]*$/, grammar: 'an Alpine package name' },
  rpm: { pattern: /^[A-Za-z0-9_+][A-Za-z0-9_+.-]*$/, grammar: 'an RPM package name' },
};

const OS_VERSIONS: Record<OsFamily, { pattern: RegExp; grammar: string }> = {
  // Policy §5.6.12: [epoch:]upstream[-revision], the upstream version starting with a digit.
  debian: { pattern: /^(?:[0-9]+:)?[0-9][A-Za-z0-9.+~-]*$/, grammar: 'a Debian version' },
  alpine: {
    pattern: /^[0-9]+(?:\.[0-9]+)*[a-z]?(?:_(?:alpha|beta|pre|rc|cvs|svn|git|hg|p)[0-9]*)*(?:-r[0-9]+)?$/,
    grammar: 'an Alpine package version',
  },
  rpm: { pattern: /^(?:[0-9]+:)?[A-Za-z0-9._+~^]+(?:-[A-Za-z0-9._+~^]+)?$/, grammar: 'an RPM version' },
};

export function osPackageName(family: OsFamily, name: string): Refusal {
  const { pattern, grammar } = OS_NAMES[family];
  if (name.length > 200 || !pattern.test(name)) return `package name ${quote(name)} is not ${grammar}`;
  return undefined;
}

export function osPackageVersion(family: OsFamily, version: string): Refusal {
  const { pattern, grammar } = OS_VERSIONS[family];
  if (version.length > 200 || !pattern.test(version)) return `version ${quote(version)} is not ${grammar}`;
  return undefined;
}

/** GitHub's `owner/repo`. */
export function repoSlug(slug: string): Refusal {
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/.test(slug) || /\/\.\.?$/.test(slug))
    return `repository ${quote(slug)} is not a GitHub owner/repo`;
  return undefined;
}

/** A Kubernetes object name (RFC 1123 subdomain). */
export function kubernetesName(name: string): Refusal {
  if (name.length > 253 || !/^[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?$/.test(name))
    return `workload name ${quote(name)} is not a Kubernetes object name`;
  return undefined;
}

/** A file inside the repository: relative, no `..`, no control or shell characters. */
export function repoFilePath(path: string): Refusal {
  if (
    path.length > 300 ||
    !/^[A-Za-z0-9_][A-Za-z0-9._/-]*$/.test(path) ||
    path.split('/').some((segment) => segment === '' || segment === '.' || segment === '..') ||
    path.startsWith('.git/')
  )
    return `manifest path ${quote(path)} is not a relative path inside the repository`;
  return undefined;
}

/** An IAM role name (AWS: 1–64 of letters, digits and `+=,.@_-`). */
export function iamRoleName(name: string): Refusal {
  if (!/^[\w+=,.@-]{1,64}$/.test(name)) return `role name ${quote(name)} is not an IAM role name`;
  return undefined;
}

/** An S3 bucket name (today's rules, and the legacy names with capitals and underscores). */
export function bucketName(name: string): Refusal {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/.test(name) || name.includes('..'))
    return `bucket name ${quote(name)} is not an S3 bucket name`;
  return undefined;
}

/** The first refusal among checks, or undefined when every value passes. */
export function firstRefusal(...refusals: Refusal[]): Refusal {
  return refusals.find((r) => r !== undefined);
}

// Escaping the text around the values.

/** Control characters and line breaks (C0, DEL, C1, the Unicode line and paragraph separators). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** One line of plain text (a title, a commit subject, a file comment): no control characters, no line breaks, no backticks. */
export function plainLine(text: string, max = 200): string {
  return capText(text.replace(BREAKS, ' ').replace(/`/g, "'").trim(), max);
}

/**
 * Text safe in Markdown: Markdown punctuation and HTML backslash-escaped, @mentions and #references
 * broken with a zero-width joiner entity, one line.
 */
export function markdownText(text: string): string {
  return plainLine(text, 300)
    .replace(/[\\`*_{}[\]()#+\-.!|<>~"'&:]/g, (c) => `\\${c}`)
    .replace(/@/g, '@&#8203;');
}

/** A code span that holds any text: a fence longer than any backtick run inside, on one line. */
export function markdownCode(text: string): string {
  const line = text.replace(BREAKS, ' ');
  const longest = Math.max(0, ...[...line.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') || line.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${capText(line, 300)}${pad}${fence}`;
}

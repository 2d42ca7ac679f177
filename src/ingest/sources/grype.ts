// Source `grype`: an Anchore Grype JSON report (`grype <image> -o json`), 0.7 to current. An image scan
// (`source.type: "image"`) maps as a `trivy image` scan of the same image does (trivy.ts): the Image named
// from `userInput` by the same rules (nameImage), repo digests as digests; each match a CVE node that
// AFFECTS the image, named by its CVE id (a GHSA or distro advisory joins the CVE its
// relatedVulnerabilities name, so the CVE node is the one Trivy draws); language packages are Library nodes
// named by purl (package-ref.ts) that the image DEPENDS_ON and the CVE AFFECTS. A `grype dir:` / `file:`
// scan maps as a `trivy fs` scan: the Repository `?repo=` names. An empty `matches` is a clean scan.
//
// Scope: complete for `image:<canonical ref>` (or `repo:<name>`), the same words as Trivy's. context.ts
// qualifies a scope by its source (`grype|image:...` vs `trivy|image:...`), so a Grype scan retracts only
// what an earlier Grype scan of the image found, never Trivy's findings, and the reverse.
import { ProblemError } from '../../http/problems.js';
import type { FieldError } from '../envelope.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportProblem, reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';
import { repositoryFromUrl } from '../../identity/repository-name.js';
import { libraryRef, nameImage, nonEmpty, type ImageName } from './trivy.js';

interface GrypeCvss {
  version?: string;
  vector?: string;
  type?: string;
  source?: string;
  metrics?: { baseScore?: number };
}

interface GrypeVulnerability {
  id: string;
  severity?: string;
  dataSource?: string;
  namespace?: string;
  description?: string;
  urls?: string[];
  links?: string[];
  cvss?: GrypeCvss[] | null;
  /** Grype 0.7 .. ~0.20 */
  cvssV2?: { baseScore?: number; vector?: string };
  cvssV3?: { baseScore?: number; vector?: string };
  fix?: { versions?: string[] | null; state?: string };
  epss?: { cve?: string; epss?: number; percentile?: number }[] | null;
}

interface GrypeMatch {
  vulnerability: GrypeVulnerability;
  relatedVulnerabilities?: GrypeVulnerability[] | null;
  artifact: {
    name: string;
    version?: string;
    type?: string;
    purl?: string;
    locations?: { path?: string }[] | null;
  };
}

interface GrypeReport {
  matches: GrypeMatch[] | null;
  source: {
    type: string;
    target: unknown;
  };
  distro?: { name?: string; version?: string };
  descriptor?: { name?: string; version?: string; timestamp?: string };
}

interface ImageTarget {
  userInput: string;
  imageID?: string;
  manifestDigest?: string;
  tags?: string[] | null;
  repoDigests?: string[] | null;
}

const SCORE = { type: 'number', minimum: 0, maximum: 10 };
const OLD_CVSS = { type: 'object', properties: { baseScore: SCORE, vector: { type: 'string' } } };
const VULNERABILITY = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string', minLength: 1 },
    severity: { type: 'string' },
    cvss: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        properties: {
          version: { type: 'string' },
          vector: { type: 'string' },
          metrics: { type: 'object', properties: { baseScore: SCORE } },
        },
      },
    },
    cvssV2: OLD_CVSS,
    cvssV3: OLD_CVSS,
    fix: {
      type: 'object',
      properties: {
        versions: { type: ['array', 'null'], items: { type: 'string' } },
        state: { type: 'string' },
      },
    },
    epss: {
      type: ['array', 'null'],
      items: { type: 'object', properties: { epss: { type: 'number', minimum: 0, maximum: 1 } } },
    },
  },
};

/** Grype's `source.type`s that scan a directory or file tree, read as `trivy fs` reads one. */
const CODE_SOURCES = new Set(['directory', 'file']);

export function createGrypeSource(): IngestSource {
  const check = reportSchema<GrypeReport>('grype', {
    type: 'object',
    required: ['matches', 'source'],
    properties: {
      matches: {
        type: ['array', 'null'],
        items: {
          type: 'object',
          required: ['vulnerability', 'artifact'],
          properties: {
            vulnerability: VULNERABILITY,
            relatedVulnerabilities: { type: ['array', 'null'], items: VULNERABILITY },
            artifact: {
              type: 'object',
              required: ['name'],
              properties: {
                name: { type: 'string', minLength: 1 },
                version: { type: 'string' },
                type: { type: 'string' },
                purl: { type: 'string' },
              },
            },
          },
        },
      },
      source: {
        type: 'object',
        required: ['type', 'target'],
        properties: { type: { type: 'string' } },
      },
      descriptor: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' } } },
    },
  });
  const checkImage = reportSchema<ImageTarget>('grype', {
    type: 'object',
    required: ['userInput'],
    properties: {
      userInput: { type: 'string', minLength: 1 },
      imageID: { type: 'string' },
      manifestDigest: { type: 'string' },
      tags: { type: ['array', 'null'], items: { type: 'string' } },
      repoDigests: { type: ['array', 'null'], items: { type: 'string' } },
    },
  });
  return {
    name: 'grype',
    version: '1',
    description:
      'Anchore Grype JSON (`grype <image> -o json`, 0.7 and later): image scans (Image, CVE AFFECTS Image, Image DEPENDS_ON Library; complete per image, on the nodes a Trivy scan of the image draws), directory/file scans (Repository named by ?repo=; complete per repository).',
    snapshots: 'self',
    normalize({ body, query, receivedAt }) {
      const report = check(body);
      const out = new EnvelopeBuilder('grype', 'finding', receivedAt);
      const matches = report.matches ?? [];
      const scanned = {
        scanner: 'grype',
        scanner_version: report.descriptor?.version,
        scanned_at: report.descriptor?.timestamp,
        vulnerability_count: matches.length,
      };
      let holder: string;
      let scope: string | undefined;
      const warnings: string[] = [];
      if (report.source.type === 'image') {
        const target = checkTarget(checkImage, report.source.target);
        const image = nameGrypeImage(target);
        if (image.note) warnings.push(`grype report: ${image.note}`);
        const distro = report.distro?.name
          ? `${report.distro.name} ${report.distro.version ?? ''}`.trim()
          : undefined;
        holder = out.node('Image', image.name, {
          image_ref: image.ref?.raw ?? target.userInput,
          registry: image.ref?.registry,
          repo_tags: nonEmpty(target.tags),
          digests: image.digests.length ? image.digests : undefined,
          image_id: target.imageID,
          name_note: image.note,
          os: distro,
          ...scanned,
        });
        scope = image.scope;
      } else if (CODE_SOURCES.has(report.source.type)) {
        const name = nameRepository(report, query);
        holder = out.node('Repository', name, {
          code_scanner: 'grype',
          artifact_type: report.source.type,
          artifact_name: typeof report.source.target === 'string' ? report.source.target : undefined,
          ...scanned,
        });
        scope = `repo:${name}`;
      } else {
        throw reportProblem('grype', [
          {
            pointer: '/source/type',
            value: report.source.type,
            detail:
              'not a scan pathgate reads: an image (`grype <image>`), a directory or a file (`grype dir:.`)',
          },
        ]);
      }
      const cves = new Set<string>();
      for (const match of matches) cves.add(addMatch(out, holder, match));
      return { envelopes: [out.build()], warnings, scope, mentioned: [...cves] };
    },
  };
}

function checkTarget(check: (body: unknown) => ImageTarget, target: unknown): ImageTarget {
  try {
    return check(target);
  } catch (error) {
    // The target's own pointers are relative to it: say where it is in the report.
    if (!(error instanceof ProblemError)) throw error;
    const errors = ((error.problem.errors ?? []) as FieldError[]).map((e) => ({
      ...e,
      pointer: `/source/target${e.pointer === '/' ? '' : e.pointer}`,
    }));
    throw reportProblem('grype', errors);
  }
}

/** The image as Trivy names it (trivy.ts nameImage): `userInput` is what Trivy's ArtifactName would be. */
function nameGrypeImage(target: ImageTarget): ImageName {
  const repoDigests = [...(target.repoDigests ?? [])];
  try {
    return nameImage({
      ArtifactName: target.userInput,
      Metadata: { ImageID: target.imageID, RepoTags: target.tags ?? undefined, RepoDigests: repoDigests },
    });
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    throw reportProblem('grype', [
      {
        pointer: '/source/target/userInput',
        value: target.userInput,
        detail: 'neither an image reference (registry/name:tag or name@sha256:...) nor an image archive path',
      },
    ]);
  }
}

function nameRepository(report: GrypeReport, query: Record<string, string | undefined>): string {
  const given = query.repo?.trim();
  if (given) return given;
  const target = typeof report.source.target === 'string' ? report.source.target : undefined;
  const fromUrl = repositoryFromUrl(target);
  if (fromUrl) return fromUrl;
  throw new ProblemError(
    'invalid-query',
    `grype ${report.source.type} report of a local path (${target ?? '?'}): name its repository with ?repo=<repository>`,
    {
      errors: [
        {
          pointer: '/query/repo',
          value: query.repo ?? null,
          detail: `required: /source/target "${target ?? ''}" is a path, not a repository URL`,
        },
      ],
    },
  );
}

/**
 * The CVE id Trivy would report for this match: the match's own id when it is a CVE, else the CVE its
 * related vulnerabilities name (a GHSA or a distro advisory such as ALAS/RHSA/ELSA), else its own id.
 */
export function grypeVulnerabilityId(match: Pick<GrypeMatch, 'vulnerability' | 'relatedVulnerabilities'>): {
  id: string;
  alias?: string;
  related?: GrypeVulnerability;
} {
  const own = match.vulnerability.id;
  if (/^CVE-\d{4}-\d+$/i.test(own)) return { id: own.toUpperCase() };
  const related = (match.relatedVulnerabilities ?? []).find((r) => /^CVE-\d{4}-\d+$/i.test(r.id));
  return related ? { id: related.id.toUpperCase(), alias: own, related } : { id: own };
}

function addMatch(out: EnvelopeBuilder, holderId: string, match: GrypeMatch): string {
  const v = match.vulnerability;
  const { id, alias, related } = grypeVulnerabilityId(match);
  const cvss = preferredCvss(v) ?? (related && preferredCvss(related));
  const epss = [...(v.epss ?? []), ...(related?.epss ?? [])].find((e) => typeof e.epss === 'number');
  const severity = v.severity?.toUpperCase();
  const cve = out.node('CVE', id, {
    severity,
    cvss_score: cvss?.score,
    cvss_vector: cvss?.vector,
    cvss_source: cvss?.source,
    epss: epss?.epss,
    epss_percentile: epss?.percentile,
    aliases: alias ? [alias] : undefined,
    url: v.dataSource ?? related?.dataSource,
    title: (v.description ?? related?.description)?.slice(0, 200),
  });
  const fixed = nonEmpty(v.fix?.versions);
  const a = match.artifact;
  out.edge('AFFECTS', cve, holderId, {
    properties: {
      package: a.name,
      installed_version: a.version,
      fixed_version: fixed?.join(', '),
      status: v.fix?.state || undefined,
      severity,
      advisory: alias,
    },
  });
  // Language packages are Library nodes by purl, as Trivy's lang-pkgs are; OS packages stay on the edge.
  const library = LANGUAGE_TYPES.has(a.type ?? '')
    ? libraryRef(a.type, a.name, a.version, a.purl, a.locations?.[0]?.path)
    : undefined;
  if (library) {
    const libraryId = out.node(library.label, library.name, {
      purl: library.purl,
      package: library.packageName,
      version: library.version,
      ecosystem: library.ecosystem,
      package_type: a.type,
      path: library.path,
    });
    out.edge('DEPENDS_ON', holderId, libraryId, { properties: { target: library.path } });
    out.edge('AFFECTS', cve, libraryId, {
      properties: {
        installed_version: a.version,
        fixed_version: fixed?.join(', '),
        status: v.fix?.state || undefined,
      },
    });
  }
  return cve;
}

/** Syft's package types that are language packages (Trivy's `lang-pkgs` class); deb/apk/rpm are not. */
const LANGUAGE_TYPES = new Set([
  'python',
  'npm',
  'java-archive',
  'jenkins-plugin',
  'go-module',
  'gem',
  'rust-crate',
  'php-composer',
  'dotnet',
  'pub',
  'hex',
  'conan',
  'cocoapods',
  'swift',
  'hackage',
  'erlang-otp',
  'lua-rocks',
  'R-package',
]);

/** Primary before secondary source, the newest CVSS version first; Grype 0.7's cvssV3 before cvssV2. */
function preferredCvss(
  v: GrypeVulnerability,
): { score: number; vector?: string; source: string } | undefined {
  const entries = (v.cvss ?? [])
    .filter((c) => (c.metrics?.baseScore ?? 0) > 0)
    .sort(
      (x, y) =>
        Number(y.type === 'Primary') - Number(x.type === 'Primary') ||
        Number.parseFloat(y.version ?? '0') - Number.parseFloat(x.version ?? '0'),
    );
  const best = entries[0];
  if (best)
    return {
      score: best.metrics!.baseScore!,
      vector: best.vector,
      source: best.source ?? v.namespace ?? 'grype',
    };
  for (const old of [v.cvssV3, v.cvssV2]) {
    if (old && (old.baseScore ?? 0) > 0)
      return { score: old.baseScore!, vector: old.vector, source: v.namespace ?? 'grype' };
  }
  return undefined;
}

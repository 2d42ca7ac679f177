// Source `build`: CI build provenance as the spec gives it, `{image, repository, slug?, sha?}`. Draws
// Image BUILT_FROM Repository; the image is a reference the graph writer joins to the scanned image.
import { parseImageRef } from '../../identity/image-ref.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportProblem, reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';

interface BuildReport {
  image: string;
  repository: string;
  slug?: string;
  sha?: string;
}

const KNOWN = new Set(['image', 'repository', 'slug', 'sha']);

export function createBuildSource(): IngestSource {
  const check = reportSchema<BuildReport>('build', {
    type: 'object',
    required: ['image', 'repository'],
    properties: {
      image: { type: 'string', minLength: 1 },
      repository: { type: 'string', minLength: 1, pattern: '\\S' },
      slug: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$' },
      sha: { type: 'string', pattern: '^[0-9a-fA-F]{7,64}$' },
    },
  });
  return {
    name: 'build',
    version: '1',
    description: 'CI build provenance: {image, repository, slug?, sha?}; Image BUILT_FROM Repository.',
    snapshots: 'query',
    normalize({ body, receivedAt }) {
      const report = check(body);
      const ref = parseImageRef(report.image);
      if (!ref) {
        throw reportProblem('build', [
          {
            pointer: '/image',
            value: report.image,
            detail: 'not an image reference (registry/name:tag or name@sha256:...)',
          },
        ]);
      }
      const warnings = Object.keys(report)
        .filter((key) => !KNOWN.has(key))
        .map((key) => `build report: field "${key}" is not used`);
      const out = new EnvelopeBuilder('build', 'asset', receivedAt);
      const image = out.node('Image', ref.canonical, {
        image_ref: ref.raw,
        registry: ref.registry,
        digests: ref.digest ? [ref.digest] : undefined,
        resolve_ref: ref.raw,
      });
      const repository = out.node('Repository', report.repository.trim(), { repo_slug: report.slug });
      out.edge('BUILT_FROM', image, repository, {
        properties: { commit_sha: report.sha?.toLowerCase(), slug: report.slug },
      });
      return { envelopes: [out.build()], warnings };
    },
  };
}

// What the dashboard's path page shows beyond the route (issue 33): each hop's evidence, the fixes
// generated for the path (POST /remediation/pr opens one) and the images it runs through that are not
// verifiably signed (issue 35). Merged into SCHEMA_SDL, so the snapshot covers it.
import { hopEvidence } from '../../src/paths/hop-evidence.js';
import { routeNodes, type PathRecord } from '../../src/paths/path-store.js';
import { unsignedImagesOnRoute } from '../../src/paths/unsigned-images.js';
import { fixesFor } from '../../src/remediation/fixes.js';
import type { GraphqlContext } from './resolvers.js';

export const PATH_DETAILS_SDL = /* GraphQL */ `
  "What a hop stands on: a finding of what it leads into, the runtime alert on it, or a property of the hop."
  type HopEvidence {
    "cve, weakness, runtime or rule (a property of the hop: network rule, grant, mount, ...)."
    kind: String!
    "The CVE or weakness id, the runtime rules, or the property's name."
    name: String!
    "The CVE's CVSS base score (0 to 10), when the report gives one."
    cvss: Float
    "The CVE's EPSS exploitation probability (0 to 1), from the report or THREATINTEL."
    epss: Float
    "Whether the CVE is in CISA's known-exploited catalogue (KEV)."
    kev: Boolean
    "The finding's severity as its scanner wrote it."
    severity: String
    "The finding's title and where it was found, the alert counts, or the property's value."
    detail: String
  }

  extend type PathStep {
    "The evidence behind the hop (its price's source); empty when the hop stands on the model's table alone."
    evidence: [HopEvidence!]!
  }

  "A fix generated for an attack path (POST /remediation/pr with pathId and fix opens it as a pull request)."
  type PathFix {
    "The fix's id, as POST /remediation/pr takes it."
    id: ID!
    "What it changes: a dependency upgrade, a base image, a public access block, a deny statement, ..."
    kind: String!
    "The pull request's title."
    title: String!
    "Why it closes the route, in words."
    explanation: String!
    "The repository the fix pull request would go to (owner/repo)."
    repo: String!
    "The branch the fix pull request would be opened from."
    branch: String!
  }

  extend type AttackPath {
    "The fixes generated for the path from the graph as it stands; empty when none applies."
    fixes: [PathFix!]!
    "The images the route runs through that are not verifiably signed (signed: false, or a signature that did not verify), from the graph as it stands; empty when each is signed or was never assessed."
    unsignedImages: [UnsignedImage!]!
  }

  "An image a route runs through that is not verifiably signed: the kill chain marks it (docs/identity.md, Signatures)."
  type UnsignedImage {
    "The Image node's id."
    id: ID!
    "The image reference as reported."
    name: String!
    "unsigned (reported unsigned, or provenance carrying no signature) or signature_unverified (a signature is present but did not verify)."
    signature: String!
    "Why the signature did not verify; null for an unsigned image."
    problem: String
    "The route's node that runs the image: the workload that depends on it, or the image itself when the route passes through it."
    runsIn: ID!
  }
`;

export function createPathDetailResolvers() {
  return {
    PathStep: {
      evidence: (step: { from: string; to: string; type: string }, _: unknown, ctx: GraphqlContext) => {
        const graph = ctx.engine.tenant(ctx.tenant)?.graph;
        return graph ? hopEvidence(graph, step) : [];
      },
    },
    AttackPath: {
      fixes: (record: PathRecord, _: unknown, ctx: GraphqlContext) => {
        const graph = ctx.engine.tenant(ctx.tenant)?.graph;
        if (!graph || record.state !== 'open') return [];
        return fixesFor(record, graph).map(({ id, kind, title, explanation, repo, branch }) => ({
          id,
          kind,
          title,
          explanation,
          repo,
          branch,
        }));
      },
      unsignedImages: (record: PathRecord, _: unknown, ctx: GraphqlContext) => {
        const graph = ctx.engine.tenant(ctx.tenant)?.graph;
        if (!graph) return [];
        ctx.onGraphView?.([record.id]);
        return unsignedImagesOnRoute(
          graph,
          routeNodes(record).map((n) => n.id),
        );
      },
    },
  };
}

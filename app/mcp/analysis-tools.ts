// The estate as a whole over MCP: `posture` (counts of open paths), `gate_verdict` (the merge gate's
// verdict for a commit), `what_if` (hops cut or repriced on a copy of the estate: the risk before and
// after, the paths closed) and `remediation_plan` (choke points ranked by the critical risk they remove,
// each verified by a what-if). All read-only: a what-if never touches the live graph.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { EDGE_TYPES } from '../../src/graph/vocabulary.js';
import { answering, pathUri, type ToolDeps } from './answers.js';
import {
  GATE_VERDICT,
  POSTURE,
  REMEDIATION_PLAN,
  WHAT_IF,
  type GateVerdictAnswer,
  type PostureAnswer,
  type RemediationPlanAnswer,
  type WhatIfAnswer,
  type WhatIfPath,
} from './queries.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

/** GRAPHQL_MAX_LIST_ITEMS' default: the API refuses longer lists anyway. */
const MAX_CUTS = 100;

export function registerAnalysisTools(server: McpServer, deps: ToolDeps): void {
  const { api, links } = deps;

  server.registerTool(
    'posture',
    {
      title: 'Security posture',
      description:
        'Counts of your open attack paths: critical (open P1, not suppressed), suppressed critical, those with a known-exploited (KEV) hop, those confirmed by a runtime sensor, and all open paths.',
      inputSchema: {},
      annotations: READ_ONLY,
    },
    () =>
      answering(async () => {
        const { posture } = await api.graphql<PostureAnswer>(POSTURE);
        return { ...posture, link: links.overview(), pathsLink: links.paths() };
      }),
  );

  server.registerTool(
    'gate_verdict',
    {
      title: 'Merge gate verdict',
      description:
        "The merge gate's last verdict for a commit (clean, blocked or unknown) with its reason and the routes it opened, worsened or left as they were.",
      inputSchema: {
        sha: z
          .string()
          .regex(/^[0-9a-fA-F]{7,40}$/, 'a commit SHA: 7 to 40 hex digits')
          .describe('A full commit SHA, or a unique prefix of at least 7 hex digits.'),
      },
      annotations: READ_ONLY,
    },
    ({ sha }) =>
      answering(async () => {
        const { prVerdict } = await api.graphql<GateVerdictAnswer>(GATE_VERDICT, { sha });
        if (!prVerdict)
          return {
            found: false,
            sha,
            detail: `the merge gate has given no verdict for ${sha} in this tenant`,
          };
        return { found: true, ...prVerdict, link: links.gate(prVerdict.sha) };
      }),
  );

  server.registerTool(
    'what_if',
    {
      title: 'What if these hops were cut',
      description:
        'Removes (or reprices) the named hops on a copy of the estate, searches the paths again and simulates the risk before and after on the same random worlds: the change in the chance any crown jewel falls and in the expected number compromised, the paths closed, weakened or opened. Nothing in the live estate changes.',
      inputSchema: {
        cuts: z
          .array(
            z.object({
              from: z.string().min(1).max(500).describe("The hop's source node, by id or name."),
              to: z.string().min(1).max(500).describe("The hop's target node, by id or name."),
              type: z
                .enum(EDGE_TYPES)
                .optional()
                .describe('Only hops of this edge type; every type between the two nodes when absent.'),
              probability: z
                .number()
                .min(0)
                .max(1)
                .optional()
                .describe('Reprice the hop to this probability instead of removing it.'),
            }),
          )
          .min(1)
          .max(MAX_CUTS)
          .describe('The hops to cut (or reprice).'),
        iterations: z
          .number()
          .int()
          .min(1)
          .max(1_000_000)
          .default(1000)
          .describe('Random worlds for the risk before and after (default 1000).'),
        seed: z
          .number()
          .int()
          .default(1)
          .describe('Seed of the random worlds: the same seed gives the same answer.'),
      },
      annotations: READ_ONLY,
    },
    (args) =>
      answering(async () => {
        const { whatIf } = await api.graphql<WhatIfAnswer>(WHAT_IF, args);
        if (!whatIf) throw new Error('what_if: the API answered no result');
        const pair = (p: WhatIfPath) => ({
          id: p.id,
          start: p.start.name,
          target: p.target.name,
          scoreBefore: p.scoreBefore,
          scoreAfter: p.scoreAfter,
          resource: pathUri(p.id),
          link: links.path(p.id),
        });
        const weakened = whatIf.remainingPaths.filter(
          (p) => p.scoreAfter !== null && p.scoreAfter < p.scoreBefore,
        );
        return {
          removedEdges: whatIf.removedEdges,
          repricedEdges: whatIf.repricedEdges,
          riskBefore: whatIf.beforeRisk,
          riskAfter: whatIf.afterRisk,
          riskReduction: whatIf.riskReduction,
          expectedReduction: whatIf.expectedReduction,
          closedPaths: whatIf.closedPaths.map(pair),
          weakenedPaths: weakened.map(pair),
          openedPaths: whatIf.openedPaths.map(pair),
          unchangedPaths: whatIf.remainingPaths.length - weakened.length,
          link: links.whatIf(),
        };
      }),
  );

  server.registerTool(
    'remediation_plan',
    {
      title: 'Remediation plan',
      description:
        'Choke points ranked by how much open critical risk one change removes, each verified by a what-if before it is offered: the hop to cut (or the public access to block), the critical paths it closes, the cumulative coverage, and the generated fix where one exists.',
      inputSchema: {
        title: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('Keep only items whose title contains this (case-insensitive).'),
      },
      annotations: READ_ONLY,
    },
    ({ title }) =>
      answering(async () => {
        const { remediationPlan } = await api.graphql<RemediationPlanAnswer>(REMEDIATION_PLAN, { title });
        return {
          items: (remediationPlan ?? []).map((item) => ({
            rank: item.rank,
            title: item.title,
            kind: item.kind,
            coveragePct: item.coveragePct,
            verification: item.verification,
            cut: item.cut && {
              from: item.cut.from.name,
              to: item.cut.to.name,
              type: item.cut.type,
              probability: item.cut.probability,
            },
            blockPublicAccess: item.node?.name,
            fix: item.fix,
            fixRefused: item.fixRefused,
            paths: item.pathIds.map((id) => ({ id, resource: pathUri(id), link: links.path(id) })),
          })),
          link: links.whatIf(),
        };
      }),
  );
}

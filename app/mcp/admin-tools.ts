// The one write over MCP: `suppress_attack_path` (POST /suppressions, admin). It is registered only on a
// server built for an admin, so a viewer's client never lists it; the API refuses it to anyone else anyway.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { DEFAULT_TTL_DAYS, MAX_TTL_DAYS, SUPPRESSION_REASONS } from '../../src/governance/suppressions.js';
import { answering, pathUri, type ToolDeps } from './answers.js';
import { PATH_ID } from './path-tools.js';

/** The tools only an admin's server lists (docs/mcp.md). */
export const ADMIN_TOOLS = ['suppress_attack_path'] as const;

export function registerAdminTools(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    'suppress_attack_path',
    {
      title: 'Suppress an attack path',
      description: `Suppresses one attack path (admin): while the suppression is active the path is not critical, so it leaves the posture's critical count, alerts and the merge gate; the graph and the risk are unchanged. It expires after ttlDays (default ${DEFAULT_TTL_DAYS}); suppressing again replaces it.`,
      inputSchema: {
        pathId: z
          .string()
          .regex(PATH_ID, 'an attack path id: ap- and 16 hex digits')
          .describe('The path id (ap-…).'),
        reason: z.enum(SUPPRESSION_REASONS).describe('Why the path is suppressed.'),
        owner: z
          .string()
          .min(1)
          .max(200)
          .regex(/\S/, 'a person or team, not blank')
          .describe('Who answers for the decision (a person or team).'),
        note: z.string().max(2000).optional().describe('Free text kept with the suppression.'),
        ttlDays: z
          .number()
          .int()
          .min(1)
          .max(MAX_TTL_DAYS)
          .optional()
          .describe(`Days until it expires (1 to ${MAX_TTL_DAYS}, default ${DEFAULT_TTL_DAYS}).`),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (args) =>
      answering(async () => {
        const stored = await deps.api.rest<Record<string, unknown>>('POST', '/suppressions', args);
        return { suppression: stored, resource: pathUri(args.pathId), link: deps.links.path(args.pathId) };
      }),
  );
}

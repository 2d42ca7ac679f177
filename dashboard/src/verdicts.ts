// The merge gate's verdicts as the API lists them (Query.gateVerdicts), for the overview and the Gate page.
import { gql } from './api';

export interface Verdict {
  sha: string;
  verdict: string;
  reason: string;
  attribution: string;
  opened: number;
  worsened: number;
  exposed: number;
  preexisting: number;
  slug: string | null;
  pr: number | null;
  decidedAt: string;
}

export const VERDICT_FIELDS =
  'sha verdict reason attribution opened worsened exposed preexisting slug pr decidedAt';

export async function listVerdicts(options: {
  first?: number;
  latestPerRepository?: boolean;
  repository?: string;
}): Promise<{ verdicts: Verdict[]; total: number }> {
  const { gateVerdicts } = await gql<{
    gateVerdicts: { totalCount: number; edges: { node: Verdict }[] };
  }>(
    `query G($first: Int, $latest: Boolean, $repository: String) {
      gateVerdicts(first: $first, latestPerRepository: $latest, repository: $repository) {
        totalCount edges { node { ${VERDICT_FIELDS} } } } }`,
    {
      first: options.first ?? 20,
      latest: options.latestPerRepository ?? false,
      repository: options.repository || undefined,
    },
  );
  return { verdicts: gateVerdicts.edges.map((e) => e.node), total: gateVerdicts.totalCount };
}

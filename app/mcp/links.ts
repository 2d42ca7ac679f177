// Links from an MCP answer to the dashboard page that shows the same thing (docs/dashboard.md, "Pages").
// A link is written only when PUBLIC_URL says where people reach the dashboard: without it an answer
// carries no link at all, never one that 404s (as app/github/links.ts does for comments).

export class DashboardLinks {
  private readonly base: string | undefined;

  /** `publicUrl`: PUBLIC_URL (the dashboard's address as people reach it), or undefined for no links. */
  constructor(publicUrl: string | undefined) {
    this.base = publicUrl?.replace(/\/+$/, '');
  }

  private page(pathAndQuery: string): string | undefined {
    return this.base === undefined ? undefined : `${this.base}${pathAndQuery}`;
  }

  /** The overview (posture, trend, crown jewels at risk). */
  overview(): string | undefined {
    return this.page('/');
  }

  /** Every path of the caller, filtered. */
  paths(): string | undefined {
    return this.page('/paths');
  }

  /** One attack path: its route, evidence, alternatives and fixes. */
  path(id: string): string | undefined {
    return this.page(`/paths/${encodeURIComponent(id)}`);
  }

  /** The merge gate's verdict for a commit. */
  gate(sha: string): string | undefined {
    return this.page(`/gate?sha=${encodeURIComponent(sha)}`);
  }

  /** What-if and the remediation plan. */
  whatIf(): string | undefined {
    return this.page('/what-if');
  }

  /** A node's neighbourhood in the caller's routes. */
  graph(nodeId: string): string | undefined {
    return this.page(`/graph?node=${encodeURIComponent(nodeId)}`);
  }
}

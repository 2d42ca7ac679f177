// Links from GitHub back to pathgate. A link is written only when the page behind it exists: the
// dashboard serves `/paths/<id>` when it runs (DASHBOARD_ADDR) and PUBLIC_URL says where people reach it.
// Without both, comments, the Check Run and the status carry no link at all (no 404s).

export interface LinkSettings {
  /** PUBLIC_URL */
  publicUrl?: string;
  /** a dashboard is configured (DASHBOARD_ADDR): it serves the pages linked to */
  dashboard?: boolean;
}

/** The page of one attack path (or, without an id, the dashboard's front page), or undefined. */
export function pathLink(settings: LinkSettings | undefined, id?: string): string | undefined {
  if (!settings?.publicUrl || !settings.dashboard) return undefined;
  const base = settings.publicUrl.replace(/\/+$/, '');
  return id ? `${base}/paths/${encodeURIComponent(id)}` : `${base}/`;
}

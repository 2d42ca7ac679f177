// Which comments on a pull request are the app's own. Its hidden markers (`<!-- pathgate:… -->`) drive the
// upsert, so a marker counts only in a comment the app wrote: one GitHub attributes to this App
// (`performed_via_github_app`) in App mode, or to the token's user in token mode. A marker anyone else
// writes is text: never updated, resolved, deleted or trusted. Markers are read at the start of a body
// only, where the app puts them (names further down are escaped, but need not be relied on).
import type { Forge, ForgeComment, ForgeIdentity, RepoRef } from '../../src/forge/forge.js';

/** the sticky summary comment's marker */
export const SUMMARY_MARKER = '<!-- pathgate:summary -->';
/** a per-fix (or legacy per-route, or exposure) comment: `fix-…`, `ap-…`, `exposed-…` */
const SUBJECT = /^<!-- pathgate:path=((?:ap|fix|exposed)-[0-9a-f]{16}) -->/;
/** the routes a per-fix comment covers, on its second line */
const ROUTES =
  /^<!-- pathgate:path=[a-z]+-[0-9a-f]{16} -->(?:<!-- pathgate:resolved -->)?\n<!-- pathgate:routes=((?:ap-[0-9a-f]{16},?)+) -->/;

export function isOwn(comment: ForgeComment, me: ForgeIdentity | undefined): boolean {
  if (!me) return false;
  if (me.appId !== undefined) return comment.viaApp === me.appId;
  return me.login !== undefined && comment.author?.toLowerCase() === me.login.toLowerCase();
}

/** The app's own comments on the pull request (none when the forge cannot say who it is). */
export async function ownComments(forge: Forge, repo: RepoRef, issue: number): Promise<ForgeComment[]> {
  const me = await forge.whoAmI();
  if (!me) return [];
  return (await forge.listComments(repo, issue)).filter((c) => isOwn(c, me));
}

export const subjectOf = (body: string): string | undefined => SUBJECT.exec(body)?.[1];

/** The routes a comment is about: those its routes marker lists, or its legacy route id. */
export function routesOf(body: string): string[] {
  const listed = ROUTES.exec(body)?.[1];
  if (listed) return listed.split(',').filter(Boolean);
  const subject = subjectOf(body);
  return subject?.startsWith('ap-') ? [subject] : [];
}

export const isSummary = (body: string): boolean => body.startsWith(SUMMARY_MARKER);

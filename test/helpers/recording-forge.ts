// A forge for tests of what the app shows on a pull request: it records the commit statuses it is asked to
// set, lists no comment and accepts every comment change; anything else is not used by those tests.
import type { CommitStatus, Forge } from '../../src/forge/forge.js';

/** A forge that records the statuses it is asked to set. */
export function recordingForge(): Forge & { statuses: CommitStatus[] } {
  const statuses: CommitStatus[] = [];
  const none = async () => {
    throw new Error('not used');
  };
  return {
    statuses,
    listComments: async () => [],
    createComment: async () => undefined,
    updateComment: async () => undefined,
    deleteComment: async () => undefined,
    setStatus: async (_repo, _sha, status) => void statuses.push(status),
    defaultBranch: none,
    getFile: none,
    createBranch: none,
    putFile: none,
    createPullRequest: none,
  };
}

// A forge for tests of what the app shows on a pull request: it records the commit statuses it is asked to
// set and the comments it is asked to create, lists none and accepts every other comment change; anything
// else is not used by those tests.
import type { CommitStatus, Forge } from '../../src/forge/forge.js';

/** A forge that records the statuses it is asked to set and the comments it is asked to create. */
export function recordingForge(): Forge & { statuses: CommitStatus[]; comments: string[] } {
  const statuses: CommitStatus[] = [];
  const comments: string[] = [];
  const none = async () => {
    throw new Error('not used');
  };
  return {
    statuses,
    comments,
    listComments: async () => [],
    createComment: async (_repo, _number, body) => void comments.push(body),
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

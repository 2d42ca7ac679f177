// A forge for tests of what the app shows on a pull request: it records the commit statuses it is asked to
// set, the comments it is asked to create and the check runs it writes, lists none and accepts every other
// comment change; anything else is not used by those tests.
import type { CheckRunWrite } from '../../src/forge/check-runs.js';
import type { CommitStatus, Forge } from '../../src/forge/forge.js';

/** A forge that records the statuses it is asked to set and the comments it is asked to create. */
export function recordingForge(): Forge & {
  statuses: CommitStatus[];
  comments: string[];
  checkRuns: CheckRunWrite[];
} {
  const statuses: CommitStatus[] = [];
  const comments: string[] = [];
  const checkRuns: CheckRunWrite[] = [];
  const none = async () => {
    throw new Error('not used');
  };
  return {
    statuses,
    comments,
    checkRuns,
    whoAmI: async () => ({ login: 'recording-forge' }),
    listComments: async () => [],
    createComment: async (_repo, _number, body) => void comments.push(body),
    updateComment: async () => undefined,
    deleteComment: async () => undefined,
    setStatus: async (_repo, _sha, status) => void statuses.push(status),
    listCheckRuns: async () => [],
    createCheckRun: async (_repo, run) => checkRuns.push(run),
    updateCheckRun: async () => undefined,
    listFiles: async () => undefined,
    defaultBranch: none,
    getFile: none,
    createBranch: none,
    putFile: none,
    createPullRequest: none,
  };
}

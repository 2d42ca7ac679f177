// The GitHub App inside the service (docs/github-app.md). With WEBHOOK_SECRET set, the API listener takes
// GitHub's webhooks at POST /api/github/webhooks (signatures verified by @octokit/webhooks); with APP_ID
// and PRIVATE_KEY too, a Probot 14 app holds the GitHub credentials and writes through installation tokens;
// without them the app runs dry and logs what it would post. On pull_request opened / synchronize /
// reopened and check_suite rerequested, and after every gate verdict for a pull request's commit, the
// PR's comments and the `service/attack-paths` status are brought up to date.
import { Webhooks, type EmitterWebhookEvent } from '@octokit/webhooks';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Probot } from 'probot';
import type { GithubSettings } from '../../src/config/settings.js';
import type { Engine } from '../../src/engine/engine.js';
import { DEFAULT_TENANT } from '../../src/engine/tenant.js';
import { RepoAllowlist } from '../../src/forge/allowlist.js';
import {
  allowlisted,
  dryRunForge,
  ForgeRefused,
  githubForge,
  type Forge,
  type RepoRef,
} from '../../src/forge/forge.js';
import { problem } from '../../src/http/problems.js';
import { sendProblem } from '../plugins/http-base.js';
import { reconcile, type PullRequestTarget } from './pull-request.js';
import { registerRemediationRoute } from './remediation.js';

type Receiver = Pick<Webhooks, 'on' | 'verifyAndReceive'>;

export interface GithubApp {
  mode: 'app' | 'dry-run';
  /** Brings one pull request up to date (also called after every gate verdict). */
  refresh(target: PullRequestTarget): Promise<void>;
}

export function registerGithubApp(
  api: FastifyInstance,
  deps: { engine: Engine; logger: Logger; settings: GithubSettings },
): GithubApp {
  const { engine, settings } = deps;
  const log = deps.logger.child({ component: 'github-app' });
  const allowlist = new RepoAllowlist(settings.allowlist);
  const installations = new Map<string, number>();
  let receiver: Receiver;
  let forgeFor: (repo: RepoRef) => Promise<Forge>;
  let mode: GithubApp['mode'];
  if (settings.appId !== undefined && settings.privateKey !== undefined) {
    mode = 'app';
    const probot = new Probot({
      appId: settings.appId,
      privateKey: settings.privateKey,
      secret: settings.webhookSecret,
      baseUrl: settings.apiUrl,
      log: log as never,
    });
    // Probot initializes asynchronously: listeners queue until it is ready, receiving waits for it.
    receiver = {
      on: probot.on as unknown as Receiver['on'],
      verifyAndReceive: async (event) => {
        await probot.ready();
        return probot.webhooks.verifyAndReceive(event as never);
      },
    };
    forgeFor = async (repo) => {
      const slug = `${repo.owner}/${repo.repo}`.toLowerCase();
      let installation = installations.get(slug);
      if (installation === undefined) {
        const appOctokit = await probot.auth();
        const { data } = await appOctokit.request('GET /repos/{owner}/{repo}/installation', { ...repo });
        installation = (data as { id: number }).id;
        installations.set(slug, installation);
      }
      const octokit = await probot.auth(installation);
      return allowlisted(githubForge(octokit.request as never), allowlist, log);
    };
  } else {
    mode = 'dry-run';
    receiver = new Webhooks({ secret: settings.webhookSecret });
    const dry = dryRunForge(log);
    forgeFor = async () => dry;
    log.warn(
      'GitHub app without APP_ID and PRIVATE_KEY: running dry, logging the comments and statuses it would post',
    );
  }
  if (allowlist.empty && mode === 'app')
    log.warn('REPO_ALLOWLIST is empty: every write to GitHub will be refused');

  async function refresh(target: PullRequestTarget): Promise<void> {
    const forge = await forgeFor(target.repo);
    const result = engine.latestGate(DEFAULT_TENANT, target.sha);
    if (!result) {
      // No report has been gated for this commit: count the routes through what was ingested with it
      // (the verdict listener then reconciles), or wait for a scan.
      const slug = `${target.repo.owner}/${target.repo.repo}`;
      await engine.gateImpact({
        tenant: DEFAULT_TENANT,
        body: {},
        query: { sha: target.sha, slug, pr: String(target.number) },
        attribution: 'commit',
      });
      return;
    }
    const outcome = await reconcile(forge, target, result, settings.publicUrl);
    log.info(
      { slug: `${target.repo.owner}/${target.repo.repo}`, pr: target.number, sha: target.sha, ...outcome },
      'pull request updated',
    );
  }

  const safely = (target: PullRequestTarget, work: () => Promise<void>) =>
    work().catch((error: unknown) => {
      if (error instanceof ForgeRefused) return;
      log.error(
        { err: error, slug: `${target.repo.owner}/${target.repo.repo}`, pr: target.number },
        'could not update the pull request',
      );
    });

  const remember = (payload: { installation?: { id: number }; repository: { full_name: string } }) => {
    if (payload.installation?.id !== undefined)
      installations.set(payload.repository.full_name.toLowerCase(), payload.installation.id);
  };
  const repoOf = (payload: { repository: { name: string; owner: { login: string } } }): RepoRef => ({
    owner: payload.repository.owner.login,
    repo: payload.repository.name,
  });

  receiver.on(
    ['pull_request.opened', 'pull_request.synchronize', 'pull_request.reopened'],
    async (
      event: EmitterWebhookEvent<
        'pull_request.opened' | 'pull_request.synchronize' | 'pull_request.reopened'
      >,
    ) => {
      const { payload } = event;
      remember(payload);
      const target = {
        repo: repoOf(payload),
        number: payload.pull_request.number,
        sha: payload.pull_request.head.sha,
      };
      await safely(target, () => refresh(target));
    },
  );
  receiver.on('check_suite.rerequested', async (event: EmitterWebhookEvent<'check_suite.rerequested'>) => {
    const { payload } = event;
    remember(payload);
    for (const pull of payload.check_suite.pull_requests) {
      const target = { repo: repoOf(payload), number: pull.number, sha: payload.check_suite.head_sha };
      await safely(target, () => refresh(target));
    }
  });

  // After every gate verdict for a pull request's commit (from the Action, the CLI or a rerun).
  engine.onVerdict(async ({ slug, pr, sha, result }) => {
    if (!slug || pr === undefined || !sha) return;
    const [owner, repo] = slug.split('/');
    const target = { repo: { owner, repo }, number: pr, sha };
    await safely(target, async () => {
      const outcome = await reconcile(await forgeFor(target.repo), target, result, settings.publicUrl);
      log.info({ slug, pr, sha, ...outcome }, 'pull request updated');
    });
  });

  registerRemediationRoute(api, { engine, forgeFor, dryRun: mode === 'dry-run' });

  // Webhooks: the body is verified as received, so it is kept as text.
  void api.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    scope.post('/api/github/webhooks', { config: { access: 'public' } }, async (request, reply) => {
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : '';
      };
      try {
        await receiver.verifyAndReceive({
          id: header('x-github-delivery'),
          name: header('x-github-event') as never,
          signature: header('x-hub-signature-256'),
          payload: request.body as string,
        });
      } catch (error) {
        const message = (error as Error).message ?? '';
        if (/signature/i.test(message)) {
          log.warn({ delivery: header('x-github-delivery') }, 'webhook refused: bad signature');
          return sendProblem(
            reply,
            problem('unauthorized', 'the webhook signature does not match WEBHOOK_SECRET'),
          );
        }
        throw error;
      }
      return reply.code(202).send({ received: header('x-github-delivery') });
    });
  });

  return { mode, refresh };
}

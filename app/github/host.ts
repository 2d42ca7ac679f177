// The GitHub App inside the service (docs/github-app.md). With WEBHOOK_SECRET set, the API listener takes
// GitHub's webhooks at POST /api/github/webhooks (signatures verified by @octokit/webhooks); with APP_ID
// and PRIVATE_KEY too, a Probot 14 app holds the GitHub credentials and writes through installation tokens;
// without them the app runs dry and logs what it would post. On pull_request opened / synchronize /
// reopened and check_suite rerequested, and after every gate verdict for a pull request's commit, the
// PR's comments and the `service/attack-paths` status are brought up to date. Under load: a webhook is
// answered as soon as it is verified and read, its work queued; the updates of one pull request run one
// at a time (src/forge/pull-request-queue.ts) from the commit's latest verdict over all its reports; a
// closed or merged pull request is forgotten.
import { Webhooks, type EmitterWebhookEvent } from '@octokit/webhooks';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Probot } from 'probot';
import type { AuditLog } from '../../src/audit/audit-log.js';
import type { GithubSettings } from '../../src/config/settings.js';
import type { Engine } from '../../src/engine/engine.js';
import { DEFAULT_TENANT } from '../../src/engine/tenant.js';
import { dryRunForge, ForgeRefused, githubForge, type Forge, type RepoRef } from '../../src/forge/forge.js';
import { TenantRepos, tenantForge, type ForgeCaller } from '../../src/forge/tenant-repos.js';
import { problem } from '../../src/http/problems.js';
import { sendProblem } from '../plugins/http-base.js';
import { PullRequestQueue } from '../../src/forge/pull-request-queue.js';
import { tokenRequest } from '../../src/forge/token-request.js';
import { CommitFilesCache } from './locate.js';
import { reconcile, type PullRequestTarget } from './pull-request.js';
import type { DeliveryLedger } from './delivery-dedupe.js';
import { PullRequestHeads } from './pr-heads.js';
import { registerWebhookBody, type WebhookBody, type WebhookBodyLimits } from './webhook-body.js';
import { registerRemediationRoute } from './remediation.js';

type Receiver = Pick<Webhooks, 'on' | 'verify' | 'receive'>;

/** A signed delivery whose payload is not what its event promises: answered 400. */
class MalformedPayload extends Error {}

export interface GithubApp {
  /** `app`: the GitHub App's installation tokens; `token`: FORGE_TOKEN; `dry-run`: logs only */
  mode: 'app' | 'token' | 'dry-run';
  /** Brings one pull request up to date (also called after every gate verdict). */
  refresh(target: PullRequestTarget): Promise<void>;
  /** Resolves when every queued pull-request update has finished (tests, shutdown). */
  idle(): Promise<void>;
  /** On the leader: a webhook a follower verified and handed over (src/db/leader-inbox.ts). */
  receiveHanded(delivery: HandedWebhook): Promise<void>;
  /** The head commit remembered for a pull request (`owner/repo#n`), if any. */
  headOf(slug: string, pr: number): string | undefined;
}

/** A verified webhook delivery, as a follower hands it to the leader. */
export interface HandedWebhook {
  id: string;
  name: string;
  payload: object;
}

/** The one start-up line that says how the app talks to GitHub. */
function logMode(log: Logger, mode: GithubApp['mode'], settings: GithubSettings, webhooks: boolean): void {
  const fields = {
    mode,
    apiUrl: settings.apiUrl,
    webhooks,
    ...(mode === 'app' && { appId: settings.appId }),
    ...(settings.webhookProxyUrl && { webhookProxy: true }),
  };
  if (mode === 'app')
    log.info(
      fields,
      `GitHub App mode (APP_ID ${settings.appId}): pull requests get comments, a Check Run and a commit status through installation tokens`,
    );
  else if (mode === 'token')
    log.info(
      fields,
      'GitHub token mode (FORGE_TOKEN): pull requests get comments and a commit status written with the token (no Check Run: GitHub Apps only)',
    );
  else
    log.warn(
      fields,
      'GitHub dry run (no APP_ID and PRIVATE_KEY): webhooks are verified and handled, the comments, statuses and check runs are logged, not posted',
    );
}

export function registerGithubApp(
  api: FastifyInstance,
  deps: {
    engine: Engine;
    logger: Logger;
    settings: GithubSettings;
    /** Scale-out: a follower hands verified webhooks to the leader, which alone writes to GitHub. */
    handOff?: (delivery: HandedWebhook) => Promise<void>;
    /** where refused forge calls are recorded (`forge.refused`) */
    audit?: Pick<AuditLog, 'append'>;
    /** deliveries already taken, by X-GitHub-Delivery (app/github/delivery-dedupe.ts) */
    deliveries?: DeliveryLedger;
    /** WEBHOOK_MAX_BYTES, WEBHOOK_BUFFER_MAX_BYTES */
    webhookLimits?: WebhookBodyLimits;
  },
): GithubApp {
  const { engine, settings } = deps;
  const log = deps.logger.child({ component: 'github-app' });
  const repos = new TenantRepos(settings.allowlist);
  const installations = new Map<string, number>();
  let receiver: Receiver | undefined;
  /** the forge as it writes, before the tenant guard every caller gets it behind (`forgeFor`) */
  let rawForge: (repo: RepoRef) => Promise<Forge>;
  let mode: GithubApp['mode'];
  if (settings.appId !== undefined && settings.privateKey !== undefined) {
    mode = 'app';
    const probot = new Probot({
      appId: settings.appId,
      privateKey: settings.privateKey,
      secret: settings.webhookSecret!,
      baseUrl: settings.apiUrl,
      log: log as never,
    });
    // Probot initializes asynchronously: listeners queue until it is ready, receiving waits for it.
    receiver = {
      on: probot.on as unknown as Receiver['on'],
      verify: async (payload, signature) => {
        await probot.ready();
        return probot.webhooks.verify(payload, signature);
      },
      receive: async (event) => {
        await probot.ready();
        return probot.webhooks.receive(event as never);
      },
    };
    rawForge = async (repo) => {
      const slug = `${repo.owner}/${repo.repo}`.toLowerCase();
      let installation = installations.get(slug);
      if (installation === undefined) {
        const appOctokit = await probot.auth();
        const { data } = await appOctokit.request('GET /repos/{owner}/{repo}/installation', { ...repo });
        installation = (data as { id: number }).id;
        installations.set(slug, installation);
      }
      const octokit = await probot.auth(installation);
      return githubForge(octokit.request as never, { appId: Number(settings.appId) });
    };
  } else if (settings.token !== undefined) {
    // Token mode: no App to install; the token writes, webhooks are taken when WEBHOOK_SECRET is set.
    mode = 'token';
    if (settings.webhookSecret) receiver = new Webhooks({ secret: settings.webhookSecret });
    const forge = githubForge(tokenRequest({ token: settings.token, apiUrl: settings.apiUrl }));
    rawForge = async () => forge;
  } else {
    mode = 'dry-run';
    receiver = new Webhooks({ secret: settings.webhookSecret! });
    const dry = dryRunForge(log);
    rawForge = async () => dry;
  }
  logMode(log, mode, settings, receiver !== undefined);
  // Handlers are registered on the receiver; in token mode without WEBHOOK_SECRET there is none.
  const listen = ((events: never, handler: never) => receiver?.on(events, handler)) as Receiver['on'];
  if (repos.empty) log.warn('REPO_ALLOWLIST is empty: every write to GitHub will be refused');
  // Every forge call of every mode (the dry run too) goes through the tenant guard: no path skips it.
  // The installation is not even looked up for a repository outside the caller's tenant.
  const forgeFor = async (repo: RepoRef, caller: ForgeCaller): Promise<Forge> => {
    const slug = `${repo.owner}/${repo.repo}`;
    const sinks = { log, audit: deps.audit };
    if (!repos.allows(caller.tenant, slug)) return tenantForge(dryRunForge(log), repos, caller, sinks);
    return tenantForge(await rawForge(repo), repos, caller, sinks);
  };
  /** A webhook's repository speaks for the tenant REPO_ALLOWLIST gives it (the default tenant if none). */
  const tenantOfRepo = (repo: RepoRef) => repos.tenantOf(`${repo.owner}/${repo.repo}`) ?? DEFAULT_TENANT;

  // One pull request's updates run one at a time, in order; a second request for the same commit while
  // one waits is the same work and is not queued twice.
  const queue = new PullRequestQueue(log);
  /** where each commit's resources are declared, read once per commit */
  const commitFiles = new CommitFilesCache();
  /** the head commit of each open pull request the app has heard of (older commits do not touch comments) */
  const heads = new PullRequestHeads();
  const prKey = (target: Pick<PullRequestTarget, 'repo' | 'number'>) =>
    `${target.repo.owner}/${target.repo.repo}#${target.number}`.toLowerCase();

  async function refresh(target: PullRequestTarget): Promise<void> {
    const tenant = tenantOfRepo(target.repo);
    const forge = await forgeFor(target.repo, { tenant, actor: 'webhook' });
    const result = engine.latestGate(tenant, target.sha);
    if (!result) {
      // No report has been gated for this commit: count the routes through what was ingested with it
      // (the verdict listener then reconciles), or wait for a scan.
      const slug = `${target.repo.owner}/${target.repo.repo}`;
      await engine.gateImpact({
        tenant,
        body: {},
        query: { sha: target.sha, slug, pr: String(target.number) },
        attribution: 'commit',
      });
      return;
    }
    await update(forge, target, result);
  }

  /** Comments (only for the pull request's head commit) and the commit's status, from the result. */
  async function update(forge: Forge, target: PullRequestTarget, result: Parameters<typeof reconcile>[2]) {
    const head = heads.get(prKey(target));
    const outcome = await reconcile(forge, target, result, {
      comments: head === undefined || head === target.sha.toLowerCase(),
      links: settings,
      files: commitFiles.for(forge, target.repo, target.sha),
    });
    const where = { slug: `${target.repo.owner}/${target.repo.repo}`, pr: target.number, sha: target.sha };
    if (outcome.checkRunError)
      log.warn(
        { ...where, err: outcome.checkRunError },
        'check run not written (does the installation grant checks: write?); the commit status was set',
      );
    log.info({ ...where, ...outcome }, 'pull request updated');
  }

  /** Queues a pull request's update and returns at once; failures are logged, refusals already were. */
  // Work coalesces per tenant: another tenant's (refused) verdict for the commit never stands in for this one.
  const enqueue = (
    target: PullRequestTarget,
    work: () => Promise<void>,
    tenant = tenantOfRepo(target.repo),
  ) =>
    queue.enqueue(prKey(target), `${tenant}|${target.sha.toLowerCase()}`, async () => {
      try {
        await work();
      } catch (error) {
        if (error instanceof ForgeRefused) return;
        log.error(
          { err: error, slug: `${target.repo.owner}/${target.repo.repo}`, pr: target.number },
          'could not update the pull request',
        );
      }
    });

  const remember = (payload: { installation?: { id: number }; repository: { full_name: string } }) => {
    if (payload.installation?.id !== undefined)
      installations.set(payload.repository.full_name.toLowerCase(), payload.installation.id);
  };
  const repoOf = (payload: { repository?: { name?: string; owner?: { login?: string } } }): RepoRef => {
    const owner = payload.repository?.owner?.login;
    const repo = payload.repository?.name;
    if (typeof owner !== 'string' || typeof repo !== 'string')
      throw new MalformedPayload('repository.owner.login and repository.name are required');
    return { owner, repo };
  };
  const pullRequestTarget = (payload: {
    repository?: { name?: string; owner?: { login?: string } };
    pull_request?: { number?: unknown; head?: { sha?: unknown } };
  }): PullRequestTarget => {
    const repo = repoOf(payload);
    const number = payload.pull_request?.number;
    const sha = payload.pull_request?.head?.sha;
    if (typeof number !== 'number' || typeof sha !== 'string' || !/^[0-9a-f]{7,64}$/i.test(sha))
      throw new MalformedPayload('pull_request.number and pull_request.head.sha are required');
    return { repo, number, sha };
  };

  listen(
    ['pull_request.opened', 'pull_request.synchronize', 'pull_request.reopened'],
    async (
      event: EmitterWebhookEvent<
        'pull_request.opened' | 'pull_request.synchronize' | 'pull_request.reopened'
      >,
    ) => {
      const { payload } = event;
      const target = pullRequestTarget(payload);
      remember(payload);
      // An older event (a replay, a late delivery) does not move the head backwards: nothing to do for it.
      if (!heads.advance(prKey(target), target.sha.toLowerCase(), payload.pull_request?.updated_at)) {
        log.warn(
          { delivery: event.id, pr: target.number, sha: target.sha, head: heads.get(prKey(target)) },
          'webhook for an older head of the pull request: ignored',
        );
        return;
      }
      enqueue(target, () => refresh(target));
    },
  );
  listen('pull_request.closed', async (event: EmitterWebhookEvent<'pull_request.closed'>) => {
    // Closed or merged: nothing more to post; its watch and head are dropped so state stays bounded.
    const target = pullRequestTarget(event.payload);
    heads.delete(prKey(target));
    const slug = `${target.repo.owner}/${target.repo.repo}`;
    engine.forgetPullRequest(tenantOfRepo(target.repo), slug, target.number);
  });
  listen('check_suite.rerequested', async (event: EmitterWebhookEvent<'check_suite.rerequested'>) => {
    const { payload } = event;
    const sha = payload.check_suite?.head_sha;
    if (typeof sha !== 'string' || !Array.isArray(payload.check_suite.pull_requests))
      throw new MalformedPayload('check_suite without head_sha or pull_requests');
    const repo = repoOf(payload);
    remember(payload);
    for (const pull of payload.check_suite.pull_requests) {
      if (typeof pull?.number !== 'number') throw new MalformedPayload('a pull request without a number');
      const target = { repo, number: pull.number, sha };
      enqueue(target, () => refresh(target));
    }
  });

  // After every gate verdict for a pull request's commit (from the Action, the CLI or a rerun): the
  // update reads the commit's verdict over all its reports when its turn comes, not this one report's.
  // The verdict's tenant is the caller: a verdict for another tenant's repository is refused by the guard.
  engine.onVerdict(async ({ tenant, slug, pr, sha, result }) => {
    if (!slug || pr === undefined || !sha) return;
    const [owner, repo] = slug.split('/');
    const target = { repo: { owner, repo }, number: pr, sha };
    enqueue(
      target,
      async () =>
        update(
          await forgeFor(target.repo, { tenant, actor: 'gate-verdict' }),
          target,
          engine.latestGate(tenant, sha) ?? result,
        ),
      tenant,
    );
  });

  registerRemediationRoute(api, { engine, forgeFor, dryRun: mode === 'dry-run' });

  // Webhooks (when WEBHOOK_SECRET is set): the body is verified as received, so it is kept as text.
  const hooks = receiver;
  if (hooks)
    void api.register(async (scope) => {
      // Replaces, in this scope only, the listener's own JSON parser (app/plugins/http-base.ts): the
      // signature is checked as the body arrives, within WEBHOOK_MAX_BYTES and WEBHOOK_BUFFER_MAX_BYTES.
      registerWebhookBody(
        scope,
        settings.webhookSecret ?? '',
        deps.webhookLimits ?? { maxBytes: 25 * 1024 * 1024, bufferMaxBytes: 64 * 1024 * 1024 },
      );
      scope.post('/api/github/webhooks', { config: { access: 'public' } }, async (request, reply) => {
        const header = (name: string) => {
          const value = request.headers[name];
          return typeof value === 'string' ? value : '';
        };
        const delivery = header('x-github-delivery');
        const received = request.body as WebhookBody | undefined;
        const body = received?.text ?? '';
        const verified = received?.verified === true;
        if (!verified) {
          log.warn({ delivery }, 'webhook refused: bad signature');
          return sendProblem(
            reply,
            problem('unauthorized', 'the webhook signature does not match WEBHOOK_SECRET'),
          );
        }
        const malformed = (detail: string) => {
          log.warn(
            { delivery, event: header('x-github-event'), detail },
            'webhook refused: malformed payload',
          );
          return sendProblem(
            reply,
            problem('invalid-payload', `the webhook payload is malformed: ${detail}`),
          );
        };
        let payload: unknown;
        try {
          payload = JSON.parse(body);
        } catch (error) {
          return malformed(`not JSON (${(error as Error).message})`);
        }
        if (!payload || typeof payload !== 'object' || Array.isArray(payload))
          return malformed('not a JSON object');
        if (!header('x-github-event')) return malformed('no X-GitHub-Event header');
        // A delivery taken before (a replay) is answered, not handled again.
        if (deps.deliveries && delivery && !(await deps.deliveries.claim(delivery))) {
          log.warn(
            { delivery, event: header('x-github-event') },
            'webhook delivery already taken: not handled again',
          );
          return reply.code(200).send({ received: delivery, duplicate: true });
        }
        // A follower does not act on a webhook (it may not write to GitHub): the leader does, from PostgreSQL.
        if (deps.handOff && !engine.isLeader()) {
          try {
            await deps.handOff({ id: delivery, name: header('x-github-event'), payload });
          } catch (error) {
            log.error(
              { delivery, err: (error as Error).message },
              'webhook: could not hand it to the leader',
            );
            // Not taken: GitHub's redelivery (same id) must be handled.
            await deps.deliveries?.forget(delivery).catch(() => undefined);
            void reply.header('retry-after', '5');
            return sendProblem(
              reply,
              problem('unavailable', 'this replica cannot hand the webhook to the leader now; redeliver it'),
            );
          }
          return reply.code(202).send({ received: delivery, handedToLeader: true });
        }
        // Handlers read the payload and queue their work: the answer does not wait for GitHub writes.
        try {
          await hooks.receive({ id: delivery, name: header('x-github-event') as never, payload } as never);
        } catch (error) {
          const errors = error instanceof AggregateError ? error.errors : [error];
          const bad = errors.find((e): e is MalformedPayload => e instanceof MalformedPayload);
          if (bad) return malformed(bad.message);
          // Not handled: GitHub's redelivery (same id) must be taken.
          await deps.deliveries?.forget(delivery).catch(() => undefined);
          throw error;
        }
        return reply.code(202).send({ received: delivery });
      });
    });

  return {
    mode,
    refresh: (target) => queue.run(prKey(target), () => refresh(target)),
    idle: () => queue.idle(),
    headOf: (slug, pr) => heads.get(`${slug}#${pr}`.toLowerCase()),
    async receiveHanded(delivery) {
      if (!hooks) return;
      try {
        await hooks.receive({
          id: delivery.id,
          name: delivery.name as never,
          payload: delivery.payload,
        } as never);
      } catch (error) {
        log.warn(
          { delivery: delivery.id, err: error },
          'a webhook handed over by a follower could not be handled',
        );
      }
    },
  };
}

// WEBHOOK_PROXY_URL, for local development as Probot does it: GitHub delivers the App's webhooks to a
// smee.io channel, and smee-client (Probot's own) streams them from there (server-sent events) and POSTs
// each to this service's `/api/github/webhooks`, headers and body as GitHub sent them, so the signature is
// checked as for a direct delivery. The channel being unreachable is logged and does not stop the service.
import type { Logger } from 'pino';
import { SmeeClient } from 'smee-client';

export interface WebhookProxy {
  stop(): Promise<void>;
}

export function startWebhookProxy(options: { source: string; target: string; log: Logger }): WebhookProxy {
  const log = options.log.child({ component: 'webhook-proxy' });
  const text = (parts: unknown[]) => parts.map((p) => (p instanceof Error ? p.message : String(p))).join(' ');
  const client = new SmeeClient({
    source: options.source,
    target: options.target,
    logger: {
      info: (...parts: unknown[]) => log.info(text(parts)),
      error: (...parts: unknown[]) => log.warn(text(parts)),
    },
  });
  log.info({ target: options.target }, 'forwarding webhooks from WEBHOOK_PROXY_URL');
  const started = client.start().catch((error: unknown) => {
    log.warn(
      { err: (error as Error)?.message ?? String(error) },
      'WEBHOOK_PROXY_URL cannot be reached: no webhooks are forwarded',
    );
  });
  return {
    async stop() {
      await started;
      await client.stop();
    },
  };
}

// Outbound webhooks (drift, tickets): one POST, signed when the setting's secret is set, never redirected
// (issue 31: they followed redirects, unsigned). The signature header, as Stripe and others shape theirs:
//   X-Pathgate-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret, "<t>.<raw body>")>
// A receiver recomputes the HMAC over the timestamp, a dot and the body bytes as received, compares in
// constant time, and refuses a timestamp far from its clock (docs/security.md, "Outbound webhooks").
// A 3xx answer is a failure (logged by the caller): the body never goes where the operator did not send it.
import { createHmac } from 'node:crypto';

export const OUTBOUND_SIGNATURE_HEADER = 'x-pathgate-signature';

/** The header value for a body sent at `unixSeconds`. */
export function outboundSignature(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

export interface Delivery {
  status: number | null;
  error: string | null;
}

/** POSTs `body` (JSON text) once: 5 s at most, no redirect followed; never throws. */
export async function postWebhook(
  url: string,
  body: string,
  options: { secret?: string; now: number; timeoutMs?: number },
): Promise<Delivery> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.secret !== undefined)
    headers[OUTBOUND_SIGNATURE_HEADER] = outboundSignature(
      options.secret,
      Math.floor(options.now / 1000),
      body,
    );
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    });
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 300 && response.status < 400)
      return { status: response.status, error: `answered ${response.status}, a redirect (not followed)` };
    return { status: response.status, error: response.ok ? null : `answered ${response.status}` };
  } catch (error) {
    return { status: null, error: (error as Error).message };
  }
}

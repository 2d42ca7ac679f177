// Whether a URL points at this machine: tools that generate load or write records refuse anything else
// unless told otherwise, so a typo never aims them at a production service.
import net from 'node:net';

export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (net.isIPv4(host)) return host.startsWith('127.');
  if (net.isIPv6(host)) return host === '::1' || /^::ffff:127\./.test(host);
  return false;
}

// What a code scanner's finding (a Weakness: Semgrep, a SARIF log's result) says about the hop into a
// workload that runs code built from the scanned repository. Only weaknesses an attacker reaches through
// the application's own network interface and that give a foothold on the server count: injection, code
// execution, file access, request forgery from the server, broken authentication or authorization. The
// others price nothing: client-side flaws (XSS, CSRF, open redirects) attack the application's users, not
// the server; denial of service, weak cryptography and information leaks give no foothold; memory-safety
// findings of pattern scanners (Flawfinder's every `strcpy`) are too noisy to price a route. Hard-coded
// credentials are the Secret nodes the scanners draw, priced as secrets are.
import { SEVERITY_PROBABILITY, type HopPrice } from './probability.js';

/** Server-side weakness classes by CWE id (MITRE's CWE Top 25 of 2024 and the injection family around it). */
export const SERVER_SIDE_WEAKNESSES: ReadonlyMap<string, string> = new Map([
  ['CWE-22', 'path traversal'],
  ['CWE-23', 'path traversal'],
  ['CWE-36', 'path traversal'],
  ['CWE-73', 'file name from input'],
  ['CWE-74', 'injection'],
  ['CWE-77', 'command injection'],
  ['CWE-78', 'OS command injection'],
  ['CWE-88', 'argument injection'],
  ['CWE-89', 'SQL injection'],
  ['CWE-90', 'LDAP injection'],
  ['CWE-91', 'XML injection'],
  ['CWE-94', 'code injection'],
  ['CWE-95', 'eval injection'],
  ['CWE-98', 'remote file inclusion'],
  ['CWE-287', 'improper authentication'],
  ['CWE-306', 'missing authentication'],
  ['CWE-434', 'unrestricted upload'],
  ['CWE-470', 'unsafe reflection'],
  ['CWE-502', 'unsafe deserialization'],
  ['CWE-611', 'XML external entities'],
  ['CWE-639', 'authorization bypass by a user-controlled key'],
  ['CWE-643', 'XPath injection'],
  ['CWE-829', 'untrusted code inclusion'],
  ['CWE-862', 'missing authorization'],
  ['CWE-863', 'incorrect authorization'],
  ['CWE-915', 'mass assignment'],
  ['CWE-917', 'expression language injection'],
  ['CWE-918', 'server-side request forgery'],
  ['CWE-943', 'NoSQL injection'],
  ['CWE-1321', 'prototype pollution'],
  ['CWE-1336', 'template injection'],
]);

/**
 * How much of the severity's price a finding keeps, by the rule's own confidence (Semgrep's `confidence`,
 * CodeQL's `precision`): a static pattern is not a confirmed exploit, and a low-confidence rule is wrong
 * more often than right. A rule that does not say is taken as medium.
 */
export const CODE_FINDING_CONFIDENCE: Readonly<Record<string, number>> = {
  'very-high': 1,
  high: 1,
  medium: 0.75,
  low: 0.5,
};

/** The server-side class of a finding's CWE ids, or undefined when none is one. */
export function serverSideClass(cwe: unknown): string | undefined {
  if (!Array.isArray(cwe)) return undefined;
  for (const id of cwe) {
    const found = typeof id === 'string' ? SERVER_SIDE_WEAKNESSES.get(id.toUpperCase()) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * The price of exploiting one Weakness (its node properties: `cwe`, `severity`, `confidence` or
 * `precision`), basis `severity`; undefined for a weakness that gives no foothold on the server, or one
 * without a severity.
 */
export function priceWeakness(props: Record<string, unknown>): HopPrice | undefined {
  if (serverSideClass(props.cwe) === undefined) return undefined;
  const severity =
    typeof props.severity === 'string' ? SEVERITY_PROBABILITY[props.severity.toUpperCase()] : undefined;
  if (severity === undefined) return undefined;
  const stated = [props.confidence, props.precision].find((v) => typeof v === 'string') as string | undefined;
  const confidence =
    CODE_FINDING_CONFIDENCE[stated?.toLowerCase() ?? 'medium'] ?? CODE_FINDING_CONFIDENCE.medium;
  return { p: severity * confidence, basis: 'severity' };
}

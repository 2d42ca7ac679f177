// Calls end-to-end tests make on a test service, each checked for the answer it must give: a report
// ingested (202), and a report through the merge gate (200, its answer returned).
import { expect } from 'vitest';
import type { TestService } from './service.js';

/** Posts a report to `/ingest/<source>` and expects it accepted. */
export async function ingestOk(s: TestService, body: unknown, source: string, query = ''): Promise<void> {
  const response = await s.ingest(body, { source, query });
  expect(response.status, JSON.stringify(response.json)).toBe(202);
}

/** Posts a report to `/gate/impact?<query>` and returns the gate's answer. */
export async function gateImpact(s: TestService, body: unknown, query: string): Promise<any> {
  const response = await s.apiApp.inject({
    method: 'POST',
    url: `/gate/impact?${query}`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

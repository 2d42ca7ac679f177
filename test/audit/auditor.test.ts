// The auditor's export records (`export.oscal`, `export.ndjson`): ready for the export routes to come, named
// as the spec's Events table names them, counted towards `exfil.alert` like path reads.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { expect, it } from 'vitest';
import { createAuditor } from '../../app/plugins/audit.js';
import { AuditLog } from '../../src/audit/audit-log.js';
import { tempDir } from '../helpers/service.js';

it('writes export.oscal and export.ndjson with the paths exported, and alerts past the threshold', async () => {
  const file = path.join(await tempDir('pathgate-auditor-'), 'audit.log');
  const now = () => Date.parse('2026-11-22T12:00:00Z');
  const auditor = createAuditor(new AuditLog(file, undefined, now), { exfilThreshold: 2, now });
  const request = {
    id: 'req-9',
    method: 'GET',
    url: '/export/oscal?x=1',
    clientIp: '127.0.0.1',
    principal: { subject: 'token:abc123abc123', role: 'viewer', anonymous: false },
  } as unknown as FastifyRequest;
  auditor.export(request, 'oscal', ['ap-1', 'ap-2']);
  auditor.export(request, 'ndjson', ['ap-3']);
  const records = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  expect(records.map((r) => r.event)).toEqual(['export.oscal', 'export.ndjson', 'exfil.alert']);
  expect(records[0]).toMatchObject({
    subject: 'token:abc123abc123',
    fields: { request_id: 'req-9', path: '/export/oscal', path_ids: ['ap-1', 'ap-2'] },
  });
  expect(records[2]).toMatchObject({ subject: 'token:abc123abc123', fields: { threshold: 2 } });
});

// Falco alerts on processes outside any container: Falco names their container `host` (container.id and
// container.name both `host`). They mark the machine (`hostname`), never a workload called `host`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readReport, recognizeReport } from '../../../src/ingest/recognize.js';
import { createFalcoSource, isFalcoTextLog } from '../../../src/ingest/sources/falco.js';
import { normalize, rejection } from '../../helpers/normalize.js';

const falco = createFalcoSource();
const UNSEEN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/unseen/falco');

const alert = (fields: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  rule: 'Read sensitive file untrusted',
  priority: 'Warning',
  output: 'Warning Sensitive file opened for reading by non-trusted program (file=/etc/shadow)',
  output_fields: { 'fd.name': '/etc/shadow', ...fields },
  time: '2026-11-22T09:00:00Z',
  ...extra,
});

describe('falco: alerts on the host', () => {
  it('marks the host, not a Service called host', () => {
    const out = normalize(
      falco,
      alert({ 'container.id': 'host', 'container.name': 'host' }, { hostname: 'ip-10-0-0-7' }),
    );
    expect(out.names('Service')).toEqual([]);
    expect(out.node('VirtualMachine', 'ip-10-0-0-7').properties).toMatchObject({
      runtime_observed: true,
      runtime_rules: ['Read sensitive file untrusted'],
    });
  });

  it('reads the host from the output text when output_fields lacks container.name', () => {
    const out = normalize(falco, {
      ...alert({ 'container.id': 'host' }, { hostname: 'node-1' }),
      output: 'Warning Sensitive file opened (file=/etc/shadow container_id=host container_name=host)',
    });
    expect(out.names('Service')).toEqual([]);
    expect(out.names('VirtualMachine')).toEqual(['node-1']);
  });

  it('a container alert on the same machine still marks its container (negative twin)', () => {
    const out = normalize(
      falco,
      alert({ 'container.id': '9656db3bb358', 'container.name': 'web' }, { hostname: 'ip-10-0-0-7' }),
    );
    expect(out.names('Service')).toEqual(['web']);
    expect(out.names('VirtualMachine')).toEqual([]);
  });

  it('a host alert naming no hostname is not attached to a Service called host', () => {
    expect(rejection(falco, alert({ 'container.id': 'host', 'container.name': 'host' }))).toEqual([
      expect.objectContaining({ pointer: '/output_fields' }),
    ]);
  });

  it('the Falco docs gRPC client example (a host alert) marks localhost.localdomain', () => {
    const body = JSON.parse(
      readFileSync(path.join(UNSEEN, 'falco-website-grpc-client-rust-host-alert.json'), 'utf8'),
    );
    const out = normalize(falco, body);
    expect(out.names('Service')).toEqual([]);
    expect(out.node('VirtualMachine', 'localhost.localdomain').properties).toMatchObject({
      runtime_observed: true,
      runtime_rules: ['Delete or rename shell history'],
      runtime_priority: 'warning',
    });
  });
});

describe('falco: the text output (json_output off) is refused by name', () => {
  const line =
    '17:20:21.235891000: Notice A shell was spawned in a container with an attached terminal (user=root ' +
    'k8s.ns=default k8s.pod=alpine container=cd5d6f8e3ff5 shell=sh parent=runc cmdline=sh -c uptime)';
  const iso =
    '2024-11-17T01:47:37.956488161+0000: Warning Sensitive file opened for reading by non-trusted program ' +
    '(file=/etc/pam.d/common-account container_id=host container_name=host)';

  it('as the YAML reader maps its lines, or as a string: says to set json_output', () => {
    for (const body of [readReport(`${line}\n${iso}\n`).body, `${line}\n`]) {
      expect(isFalcoTextLog(body)).toBe(true);
      expect(rejection(falco, body)).toEqual([
        expect.objectContaining({ pointer: '/', detail: expect.stringContaining('json_output: true') }),
      ]);
    }
    expect(recognizeReport(readReport(`${line}\n`).body)).toBe('falco');
  });

  it('a YAML mapping of other times, or a JSON alert, is not taken for the text output (negative twin)', () => {
    expect(isFalcoTextLog({ '17:20:21.235891000': 'deployed the web tier' })).toBe(false);
    expect(isFalcoTextLog({ schedule: 'Notice the backup' })).toBe(false);
    expect(isFalcoTextLog(alert({ 'container.name': 'web' }))).toBe(false);
  });
});

describe('falco: CloudTrail plugin alerts mark the AWS principal, not the Falco host', () => {
  const ct = (fields: Record<string, unknown>) => ({
    rule: 'Console Login Without MFA',
    priority: 'Critical',
    source: 'aws_cloudtrail',
    hostname: 'falco-0',
    output: 'Detected a console login without MFA',
    output_fields: { 'ct.name': 'ConsoleLogin', 'ct.region': 'us-east-1', ...fields },
    time: '2026-11-22T09:00:00Z',
  });

  it('a user ARN is the iam source User, an assumed-role session its role', () => {
    const out = normalize(falco, [
      ct({ 'ct.user.arn': 'arn:aws:iam::123456789012:user/alice' }),
      ct({ 'ct.user.arn': 'arn:aws:sts::123456789012:assumed-role/deployer/botocore-session-1' }),
    ]);
    expect(out.names('User')).toEqual(['123456789012/alice']);
    expect(out.names('IAM_Role')).toEqual(['123456789012/deployer']);
    expect(out.names('VirtualMachine')).toEqual([]);
    expect(out.node('User', '123456789012/alice').properties).toMatchObject({ runtime_observed: true });
  });

  it('a syscall alert of the same host still marks the host (negative twin)', () => {
    const out = normalize(falco, { ...ct({ 'proc.name': 'cat' }), source: 'syscall' });
    expect(out.names('VirtualMachine')).toEqual(['falco-0']);
  });

  it('a CloudTrail alert naming no principal ARN is not put on the Falco host', () => {
    expect(rejection(falco, ct({ 'ct.user': 'root' }))).toEqual([
      expect.objectContaining({ pointer: '/output_fields' }),
    ]);
  });
});

// A store written by an earlier pathgate opens after an upgrade (issue 38): fixtures/stores/format-1/ is a
// DATA_DIR written by the engine of commit 8f355e3 (snapshot format 1, the graphology tenant graph; see its
// README) from real reports, with what that code held recorded in expected.json. The engine of today opens
// a copy and must hold the same graph (digests through the graph API), parked edge, scope ledger and paths,
// keep ingesting, and write a snapshot that opens again. A snapshot of a format newer than the code knows is
// refused at start, saying so: downgrading is not supported.
import { cp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/bus/journal.js';
import { writeSnapshot } from '../../src/bus/snapshot-file.js';
import { STATE_FORMAT } from '../../src/engine/state-snapshot.js';
import { readReal } from '../helpers/normalize.js';
import { makeService, tempDir, type TestService } from '../helpers/service.js';
import {
  describeTenant,
  FIXTURE_MADE_AT,
  FIXTURE_TENANT,
  type StoreExpectation,
} from '../helpers/store-fixture.js';

const FIXTURE = new URL('../../fixtures/stores/format-1/', import.meta.url).pathname;
const recorded = JSON.parse(readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8')) as StoreExpectation & {
  madeWith: string;
  madeAt: string;
  tenant: string;
};
const { madeWith: _madeWith, madeAt: _madeAt, tenant: _tenant, ...expected } = recorded;

// Opened a minute after it was made: nothing in it is old enough for a TTL to act on.
const now = () => FIXTURE_MADE_AT + 60_000;

const services: TestService[] = [];
const dirs: string[] = [];
afterEach(async () => {
  while (services.length) await services.pop()!.dispose();
  while (dirs.length) await rm(dirs.pop()!, { recursive: true, force: true });
});

/** A copy of the fixture's DATA_DIR in a fresh temporary folder (the fixture itself is never written). */
async function copyOfFixture(): Promise<string> {
  const dataDir = await tempDir('pathgate-store-upgrade-');
  dirs.push(dataDir);
  await cp(path.join(FIXTURE, 'data'), dataDir, { recursive: true });
  return dataDir;
}

async function open(dataDir: string): Promise<TestService> {
  const service = await makeService({}, { dataDir, now });
  services.push(service);
  return service;
}

describe('a store written by format-1 code, opened by the current engine', () => {
  it('the fixture holds what the check needs: a path, a parked edge and complete-snapshot scopes', () => {
    expect(recorded.tenant).toBe(FIXTURE_TENANT);
    expect(expected.paths.length).toBeGreaterThan(0);
    expect(expected.pendingEdges).toBe(1);
    expect(expected.scopes.scopes.map(([scope]) => scope)).toEqual([
      'k8s|cluster:lab',
      'trivy|image:alpine:3.10',
    ]);
  });

  it('opens with the same nodes, edges, parked edge, scope ledger and paths, and a pass finds the same paths', async () => {
    const service = await open(await copyOfFixture());
    const state = service.engine.tenant(FIXTURE_TENANT)!;
    // As restored, before any pass: the path records come from the snapshot and the path log.
    expect(describeTenant(state)).toEqual(expected);
    // A pass over the opened graph finds the same paths again (ids and scores).
    await service.settle();
    expect(state.passes).toBeGreaterThan(0);
    expect(describeTenant(state)).toEqual(expected);
    const api = (await service.graphql('{ attackPaths { id score } }')) as {
      attackPaths: { id: string; score: number }[];
    };
    expect(api.attackPaths.map((p) => p.id).sort()).toEqual(expected.paths.map((p) => p.id));
  });

  it('keeps ingesting after opening, and the snapshot it writes then opens again', async () => {
    const dataDir = await copyOfFixture();
    const first = await open(dataDir);
    const answer = await first.ingest(readReal('trivy/spring4shell-jre8-archive.json'), { source: 'trivy' });
    expect(answer.status).toBe(202);
    await first.settle();
    const after = describeTenant(first.engine.tenant(FIXTURE_TENANT)!);
    expect(after.nodes).toBeGreaterThan(expected.nodes);
    expect(after.scopes.scopes.length).toBe(expected.scopes.scopes.length + 1);
    // What the fixture held is still there: its paths and its parked edge.
    expect(after.paths).toEqual(expected.paths);
    expect(after.parked).toEqual(expected.parked);
    // Closing writes the snapshot (in the current format); the next start reads it.
    services.pop();
    await first.dispose({ keepData: true });
    const snapshot = await readFile(path.join(dataDir, 'state', 'snapshot.ndjson'), 'utf8');
    expect(JSON.parse(snapshot.slice(0, snapshot.indexOf('\n')))).toMatchObject({ format: STATE_FORMAT });
    const second = await open(dataDir);
    expect(describeTenant(second.engine.tenant(FIXTURE_TENANT)!)).toEqual(after);
  });

  it('refuses, at start, a snapshot of a format newer than it reads, and changes nothing stored', async () => {
    const dataDir = await copyOfFixture();
    const stateDir = path.join(dataDir, 'state');
    // The fixture's own lines under the metadata of a later version.
    const text = await readFile(path.join(stateDir, 'snapshot.ndjson'), 'utf8');
    const lines = text.trimEnd().split('\n');
    const meta = JSON.parse(lines[0]) as { seq: number };
    await writeSnapshot(stateDir, { ...meta, format: 99 }, lines.slice(1, -1));
    const written = await readFile(path.join(stateDir, 'snapshot.ndjson'));

    // Every journal the start opens, to see that a refused start closed it.
    const opened: Journal[] = [];
    const open = Journal.open.bind(Journal);
    const spy = vi.spyOn(Journal, 'open').mockImplementation(async (...args) => {
      const journal = await open(...args);
      opened.push(journal);
      return journal;
    });
    const refused = makeService({}, { dataDir, now });
    await refused.catch(() => undefined);
    spy.mockRestore();
    await expect(refused).rejects.toThrow(/has format 99/);
    await expect(refused).rejects.toThrow(/a newer pathgate wrote it/);
    await expect(refused).rejects.toThrow(/downgrading is not supported/);
    expect(await readFile(path.join(stateDir, 'snapshot.ndjson'))).toEqual(written);
    // The refused start let go of the journal it had opened (a process that goes on may open it again).
    expect(opened.length).toBeGreaterThan(0);
    expect(opened.map((journal) => (journal as unknown as { closed: boolean }).closed)).toEqual(
      opened.map(() => true),
    );
  });

  it('negative twin: the same lines under the current format open', async () => {
    const dataDir = await copyOfFixture();
    const stateDir = path.join(dataDir, 'state');
    const text = await readFile(path.join(stateDir, 'snapshot.ndjson'), 'utf8');
    const lines = text.trimEnd().split('\n');
    const meta = JSON.parse(lines[0]) as { seq: number };
    await writeSnapshot(stateDir, { ...meta, format: STATE_FORMAT }, lines.slice(1, -1));
    const service = await open(dataDir);
    expect(describeTenant(service.engine.tenant(FIXTURE_TENANT)!)).toEqual(expected);
  });
});

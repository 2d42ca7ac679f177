// YAML the `yaml` package warns about (a Helm template's `{{ value }}` read as a flow-map key, as in
// kubernetes/examples' archived newrelic DaemonSet) is read without a process warning: such warnings went to
// stderr beside the service's JSON log lines and into `pathgate ingestreal`'s output. Errors still refuse.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ProblemError } from '../../src/http/problems.js';
import { yamlToList } from '../../src/ingest/yaml.js';

// Minimal input written for this test, shaped like the template line that warned.
const TEMPLATED =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: agent\ndata:\n  {{ config_data }}: 1\n';

const warnings: Error[] = [];
const collect = (warning: Error) => warnings.push(warning);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', collect);
});
afterEach(() => {
  process.off('warning', collect);
});
// process.emitWarning delivers on a later tick.
const settled = () => new Promise((resolve) => setImmediate(resolve));

it('a flow map used as a key is read as the package reads it, with no process warning', async () => {
  const list = yamlToList(TEMPLATED);
  expect(list.items).toEqual([
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'agent' },
      data: { '{ ? { config_data } }': 1 },
    },
  ]);
  await settled();
  expect(warnings.map((w) => w.message)).toEqual([]);
});

it('negative twin: malformed YAML is still refused, naming where', () => {
  let caught: unknown;
  try {
    yamlToList('apiVersion: v1\nkind: [unclosed\n');
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ProblemError);
  expect((caught as ProblemError).problem.detail).toMatch(/document 1, line \d+, column \d+/);
});

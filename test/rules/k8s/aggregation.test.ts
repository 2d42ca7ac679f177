// ClusterRole aggregation (src/rules/k8s/aggregation.ts): an aggregated ClusterRole has the rules of the
// ClusterRoles its selectors match, as the controller manager fills them; each case with a twin that must
// not aggregate.
import { describe, expect, it } from 'vitest';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { aggregateClusterRoles } from '../../../src/rules/k8s/aggregation.js';
import { selects } from '../../../src/rules/k8s/label-selector.js';
import { yamlToList } from '../../../src/ingest/yaml.js';
import { normalize } from '../../helpers/normalize.js';

const k8s = createK8sSource();

/** An aggregated ClusterRole bound to a service account, and a ClusterRole that creates pods, labelled. */
const manifest = (selector: string, label: string, kind = 'ClusterRole') => `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ops-admin}
aggregationRule:
  clusterRoleSelectors:
  - ${selector}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ${kind}
metadata: {name: pod-maker, namespace: ops, labels: {${label}}}
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["create"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ops-admin}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ops-admin}
subjects: [{kind: ServiceAccount, name: deployer, namespace: ops}]
`;
const escalation = (yaml: string) =>
  normalize(k8s, yamlToList(yaml), { cluster: 'c' }).edgeProps(
    'CAN_ESCALATE_TO',
    'c/clusterrole/ops-admin',
    'c/cluster-admin',
  );

describe('aggregated ClusterRoles', () => {
  it('take the rules of the ClusterRoles their selector matches (a manifest writes none)', () => {
    const yaml = manifest(
      'matchLabels: {acme.io/aggregate-to-ops: "true"}',
      'acme.io/aggregate-to-ops: "true"',
    );
    expect(escalation(yaml)).toMatchObject({ primitives: ['create-pods'], scope: 'cluster' });
    const out = normalize(k8s, yamlToList(yaml), { cluster: 'c' });
    expect(out.node('IAM_Role', 'c/clusterrole/ops-admin').properties?.aggregated_from).toEqual([
      'pod-maker',
    ]);
    expect(out.edges).toContain('ASSUMES c/ops/deployer -> c/clusterrole/ops-admin');
  });

  it('twin: a label of another value, or a namespaced Role with the label, aggregates nothing', () => {
    expect(
      escalation(
        manifest('matchLabels: {acme.io/aggregate-to-ops: "true"}', 'acme.io/aggregate-to-ops: "false"'),
      ),
    ).toBeUndefined();
    expect(
      escalation(
        manifest(
          'matchLabels: {acme.io/aggregate-to-ops: "true"}',
          'acme.io/aggregate-to-ops: "true"',
          'Role',
        ),
      ),
    ).toBeUndefined();
  });

  it('match expressions as label selectors do; an unknown operator matches nothing', () => {
    expect(
      selects({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }, { tier: 'b' }),
    ).toBe(true);
    expect(
      selects({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] }, { tier: 'b' }),
    ).toBe(false);
    expect(selects({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] }, {})).toBe(true);
    expect(
      selects({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] }, { tier: 'a' }),
    ).toBe(false);
    expect(selects({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, { tier: '' })).toBe(true);
    expect(selects({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, {})).toBe(false);
    expect(selects({ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, {})).toBe(true);
    expect(
      selects({ matchExpressions: [{ key: 'tier', operator: 'Gt', values: ['1'] }] }, { tier: '2' }),
    ).toBe(false);
    // An empty selector selects every role; no selector at all, none.
    expect(selects({}, { any: 'thing' })).toBe(true);
    expect(selects(null, { any: 'thing' })).toBe(false);
  });

  it('aggregate in turn (admin takes edit, which takes view), never themselves, cycles included', () => {
    const role = (
      name: string,
      labels: Record<string, string>,
      selector?: Record<string, string>,
      rules: object[] = [],
    ) => ({
      kind: 'ClusterRole',
      metadata: { name, labels },
      ...(selector && { aggregationRule: { clusterRoleSelectors: [{ matchLabels: selector }] } }),
      rules,
    });
    const read = { apiGroups: [''], resources: ['secrets'], verbs: ['get'] };
    const view = role('view', { 'to-edit': 'true' }, { 'to-view': 'true' });
    const viewer = role('secret-viewer', { 'to-view': 'true' }, undefined, [read]);
    const edit = role('edit', { 'to-admin': 'true' }, { 'to-edit': 'true' });
    const admin = role('admin', { 'to-view': 'true' }, { 'to-admin': 'true' });
    const out = aggregateClusterRoles([view, viewer, edit, admin])!;
    expect(out.get(admin)).toEqual({ rules: [read], from: ['edit', 'secret-viewer', 'view'] });
    expect(out.get(edit)?.from).toEqual(['admin', 'secret-viewer', 'view']);
    expect(out.get(viewer)).toBeUndefined();
    // Twin: a dump without any aggregationRule is not aggregated at all.
    expect(aggregateClusterRoles([viewer])).toBeUndefined();
  });
});

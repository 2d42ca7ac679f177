// The k8s source on every real Kubernetes fixture (kubectl JSON Lists, multi-document YAML): mapping,
// RBAC escalation per primitive, container escape (T1611), RoleBinding-to-ClusterRole scoping, and YAML
// and pull-request stamping through the listener.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { yamlToList } from '../../../src/ingest/yaml.js';
import { rbacEscalation } from '../../../src/rules/k8s/index.js';
import { normalize, REAL } from '../../helpers/normalize.js';
import { makeService } from '../../helpers/service.js';

const k8s = createK8sSource();
const read = (relative: string) => {
  const text = readFileSync(path.join(REAL, 'k8s', relative), 'utf8');
  return relative.endsWith('.json') ? JSON.parse(text) : yamlToList(text);
};
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const full = path.join(dir, f);
    return statSync(full).isDirectory() ? files(full) : [full];
  });

describe('k8s: every real fixture', () => {
  it.each(files(path.join(REAL, 'k8s')).map((f) => path.relative(path.join(REAL, 'k8s'), f)))(
    '%s ingests',
    (file) => {
      const out = normalize(k8s, read(file));
      expect(out.envelopes).toHaveLength(1);
    },
  );
});

describe('k8s: attacks (KubeHound test cluster)', () => {
  it.each([
    ['POD_CREATE.yaml', 'create-pods'],
    ['POD_EXEC.yaml', 'pod-exec'],
    ['POD_PATCH.yaml', 'pod-patch'],
    ['TOKEN_LIST.yaml', 'read-secrets'],
  ])('%s escalates to cluster-admin by %s', (file, primitive) => {
    const out = normalize(k8s, read(`kubehound-attacks/${file}`));
    const escalation = out.envelopes[0].edges.find((e) => e.type === 'CAN_ESCALATE_TO')!;
    expect(escalation.properties!.primitives).toContain(primitive);
    expect(out.names('IAM_Role')).toContain('cluster-admin');
    // The pod assumes its service account, which assumes the role.
    expect(out.edges.filter((e) => e.startsWith('ASSUMES'))).toHaveLength(2);
  });

  it.each(['CE_NSENTER.yaml', 'CE_PRIV_MOUNT.yaml', 'EXPLOIT_HOST_WRITE.yaml'])(
    '%s escapes to its node (T1611)',
    (file) => {
      const out = normalize(k8s, read(`kubehound-attacks/${file}`));
      const escape = out.envelopes[0].edges.find((e) => e.type === 'CAN_ESCALATE_TO')!;
      expect(escape.properties).toMatchObject({ attack: 'T1611' });
      expect((escape.properties!.reasons as string[]).length).toBeGreaterThan(0);
      expect(out.nodes.find((n) => n.id === escape.to)!.label).toBe('VirtualMachine');
    },
  );

  it('scopes a ClusterRole bound by a RoleBinding to its namespace', () => {
    const out = normalize(k8s, read('kubehound-attacks/ROLE_BIND_RB_CR-SA.yaml'));
    const scoped = out.nodes.filter((n) => n.properties?.bound_in_namespace);
    expect(scoped.length).toBeGreaterThan(0);
    const edges = out.envelopes[0].edges.filter(
      (e) => scoped.some((n) => n.id === e.from) && e.type === 'CAN_ESCALATE_TO',
    );
    expect(edges.every((e) => e.resource_scoped === true && e.properties!.scope === 'namespace')).toBe(true);
  });
});

describe('k8s: impersonation held in one namespace', () => {
  // The API server authorizes impersonating a user or a group outside any namespace, so only
  // ClusterRoleBindings are consulted: KubeHound's IDENTITY_IMPERSONATE Role (users, groups) grants nothing.
  it('IDENTITY_IMPERSONATE.yaml (a Role on users and groups) does not escalate', () => {
    const out = normalize(k8s, read('kubehound-attacks/IDENTITY_IMPERSONATE.yaml'));
    expect(out.envelopes[0].edges.some((e) => e.type === 'CAN_ESCALATE_TO')).toBe(false);
    expect(out.edges).toContain('ASSUMES default/impersonate-sa -> default/role/impersonate');
  });
});

describe('k8s: every KubeHound attack yields the edge its name describes', () => {
  const TABLE: [string, string][] = [
    ['CE_NSENTER.yaml', 'escape'],
    ['CE_PRIV_MOUNT.yaml', 'escape'],
    ['EXPLOIT_HOST_WRITE.yaml', 'escape'],
    ['ENDPOINT_EXPLOIT.yaml', 'EXPOSES default/service/webproxy-service -> default/endpoints-pod'],
    ['POD_CREATE.yaml', 'create-pods'],
    ['POD_EXEC.yaml', 'pod-exec'],
    ['POD_PATCH.yaml', 'pod-patch'],
    ['ROLE_BIND_CRB_CR.yaml', 'bind-or-escalate'],
    ['ROLE_BIND_RB_CR-SA.yaml', 'bind-or-escalate'],
    ['ROLE_BIND_RB_R-SA.yaml', 'bind-or-escalate'],
    ['TOKEN_LIST.yaml', 'read-secrets'],
  ];
  it.each(TABLE)('%s -> %s', (file, expected) => {
    const out = normalize(k8s, read(`kubehound-attacks/${file}`));
    const edges = out.envelopes[0].edges;
    if (expected === 'escape') expect(edges.some((e) => e.properties?.attack === 'T1611')).toBe(true);
    else if (expected.startsWith('EXPOSES')) expect(out.edges).toContain(expected);
    else
      expect(
        edges.some(
          (e) =>
            e.type === 'CAN_ESCALATE_TO' &&
            (e.properties?.primitives as string[] | undefined)?.includes(expected),
        ),
      ).toBe(true);
  });

  it('the test-cluster dumps yield the bindings they define', () => {
    for (const file of [
      'kubehound-test-cluster/clusterrolebindings.rbac.authorization.k8s.io.json',
      'kubehound-test-cluster/namespace-1/rolebindings.rbac.authorization.k8s.io.json',
      'kubehound-test-cluster/namespace-2/rolebindings.rbac.authorization.k8s.io.json',
    ]) {
      const out = normalize(k8s, read(file));
      expect(out.edges.filter((e) => e.startsWith('ASSUMES test-app/app-monitors ->'))).toHaveLength(1);
    }
  });
});

describe('k8s: mapping', () => {
  it('routes ingresses to services, exposes selected workloads, and marks the services they reach', () => {
    const out = normalize(k8s, read('ingress-nginx/deploy-cloud.yaml'));
    const exposed = out.nodes
      .filter((n) => n.label === 'LoadBalancer' && n.properties?.internet_exposed)
      .map((n) => n.name);
    expect(exposed).toEqual(['ingress-nginx/service/ingress-nginx-controller']);
    expect(out.edges).toContain(
      'EXPOSES ingress-nginx/service/ingress-nginx-controller -> ingress-nginx/ingress-nginx-controller',
    );
    const tls = normalize(k8s, read('ingress-nginx/examples-tls-termination-ingress.yaml'));
    expect(tls.edges.filter((e) => e.startsWith('ROUTES_TO'))).toHaveLength(1);
  });

  it('reads each RBAC primitive from the rules', () => {
    const all = { apiGroups: ['*'], verbs: ['*'], resources: ['*'] };
    expect(rbacEscalation([all], 'x').primitives).toContain('wildcard');
    expect(rbacEscalation(undefined, 'cluster-admin').primitives).toEqual(['admin-named']);
    expect(rbacEscalation([], 'cluster-admin').primitives).toEqual([]);
    expect(
      rbacEscalation([{ apiGroups: [''], verbs: ['create'], resources: ['serviceaccounts/token'] }], 'x')
        .primitives,
    ).toEqual(['create-serviceaccount-token']);
    expect(
      rbacEscalation([{ apiGroups: [''], verbs: ['get'], resources: ['configmaps'] }], 'viewer'),
    ).toEqual({
      primitives: [],
      named: false,
    });
  });
});

describe('k8s through the listener', () => {
  it('takes multi-document YAML, and stamps only the objects the dump contains', async () => {
    const service = await makeService();
    const yaml = readFileSync(path.join(REAL, 'k8s/kubehound-attacks/POD_CREATE.yaml'), 'utf8');
    const response = await service.ingestApp.inject({
      method: 'POST',
      url: '/ingest/k8s?slug=acme/infra&pr=12&sha=abcdef1',
      headers: { 'content-type': 'application/yaml' },
      payload: yaml,
    });
    expect(response.statusCode).toBe(202);
    await service.settle();
    const graph = service.engine.tenant('default')!.graph;
    const stamped: string[] = [];
    graph.forEachNode((_id, a) => {
      if (a.props.commit_sha === 'abcdef1') stamped.push(a.name);
    });
    expect(stamped.length).toBeGreaterThan(0);
    expect(stamped).not.toContain('cluster-admin');
    const bad = await service.ingestApp.inject({
      method: 'POST',
      url: '/ingest/k8s',
      headers: { 'content-type': 'application/yaml' },
      payload: 'kind: [unclosed',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().type).toBe('urn:pathgate:problem:malformed-yaml');
    await service.dispose();
  });
});

// Source `k8s`: a Kubernetes dump as `kubectl get ... -o json` writes it (a `List` of mixed kinds, or a
// per-kind list) or multi-document YAML (parsed at the listener). Mapping (DECISIONS.md): Ingress and
// Service -> LoadBalancer, Pod (and the pod templates of Deployments, StatefulSets, DaemonSets, Jobs,
// CronJobs) -> Service, ServiceAccount -> ServiceAccount, Role/ClusterRole -> IAM_Role. Draws Ingress
// ROUTES_TO Service, Service EXPOSES workload (selector), workload ASSUMES ServiceAccount, ServiceAccount
// ASSUMES Role through bindings (a RoleBinding to a ClusterRole grants it in that namespace only), RBAC
// escalation to the synthetic `cluster-admin` (src/rules/k8s/), and container escape to the node (T1611).
// Names: `<namespace>/<name>` for workloads and service accounts, `<namespace>/<kind>/<name>` for
// ingresses, services and roles, `clusterrole/<name>`, `node/<name>`.
import { escapeReasons } from '../../rules/k8s/container-escape.js';
import { rbacEscalation, type PolicyRule } from '../../rules/k8s/index.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { reportProblem } from './report-schema.js';
import type { IngestSource } from './source.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects as the API returns them
type K8sObject = Record<string, any>;

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob']);
export const CLUSTER_ADMIN = 'cluster-admin';
const USED_KINDS = new Set([
  ...WORKLOAD_KINDS,
  'Pod',
  'Service',
  'Ingress',
  'ServiceAccount',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'Node',
]);

export function createK8sSource(): IngestSource {
  return {
    name: 'k8s',
    version: '1',
    description:
      'Kubernetes dumps (JSON List or YAML): ingresses, services, workloads, RBAC escalation, container escape.',
    snapshots: 'query',
    normalize({ body, receivedAt }) {
      const objects = flatten(body);
      const out = new EnvelopeBuilder('k8s', 'asset', receivedAt);
      const mentioned = new Set<string>();
      const ns = (o: K8sObject) => String(o.metadata?.namespace ?? 'default');
      const name = (o: K8sObject) => String(o.metadata?.name ?? '');

      // Workloads: pods and pod templates, with their labels for selectors.
      const workloads: { id: string; namespace: string; labels: Record<string, string> }[] = [];
      for (const o of objects) {
        const spec = o.kind === 'Pod' ? o.spec : WORKLOAD_KINDS.has(o.kind) ? templateOf(o)?.spec : undefined;
        if (!spec || !name(o)) continue;
        const labels = (o.kind === 'Pod' ? o.metadata?.labels : templateOf(o)?.metadata?.labels) ?? {};
        const images = (spec.containers ?? [])
          .map((c: K8sObject) => c.image)
          .filter((i: unknown) => typeof i === 'string');
        const id = out.node('Service', `${ns(o)}/${name(o)}`, {
          namespace: ns(o),
          kind: o.kind.toLowerCase(),
          image: images[0],
          images: images.length > 1 ? images : undefined,
          node_name: spec.nodeName,
        });
        workloads.push({ id, namespace: ns(o), labels });
        const sa = out.node(
          'ServiceAccount',
          `${ns(o)}/${spec.serviceAccountName ?? spec.serviceAccount ?? 'default'}`,
          { namespace: ns(o) },
        );
        out.edge('ASSUMES', id, sa);
        const reasons = escapeReasons(spec);
        if (reasons.length) {
          const host = out.node('VirtualMachine', `node/${spec.nodeName ?? 'any-node'}`, { k8s_node: true });
          if (!spec.nodeName) mentioned.add(host);
          out.edge('CAN_ESCALATE_TO', id, host, {
            properties: { attack: 'T1611', technique: 'Escape to Host', reasons },
          });
        }
      }

      // Services select workloads (of their namespace); Ingresses route to services.
      const byNamespace = new Map<string, typeof workloads>();
      for (const w of workloads) {
        const list = byNamespace.get(w.namespace);
        if (list) list.push(w);
        else byNamespace.set(w.namespace, [w]);
      }
      const services = new Map<string, string>();
      for (const o of objects.filter((x) => x.kind === 'Service' && name(x))) {
        const type = o.spec?.type ?? 'ClusterIP';
        const id = out.node('LoadBalancer', `${ns(o)}/service/${name(o)}`, {
          namespace: ns(o),
          k8s_kind: 'Service',
          service_type: type,
          ...((type === 'LoadBalancer' || type === 'NodePort') && {
            internet_exposed: true,
            exposure_basis: `service-type:${type}`,
          }),
        });
        services.set(`${ns(o)}/${name(o)}`, id);
        const selector: Record<string, string> = o.spec?.selector ?? {};
        if (!Object.keys(selector).length) continue;
        for (const w of byNamespace.get(ns(o)) ?? []) {
          if (Object.entries(selector).every(([k, v]) => w.labels[k] === v)) out.edge('EXPOSES', id, w.id);
        }
      }
      for (const o of objects.filter((x) => x.kind === 'Ingress' && name(x))) {
        const id = out.node('LoadBalancer', `${ns(o)}/ingress/${name(o)}`, {
          namespace: ns(o),
          k8s_kind: 'Ingress',
          internet_exposed: true,
          exposure_basis: 'ingress',
        });
        const backends = [
          o.spec?.defaultBackend,
          ...(o.spec?.rules ?? []).flatMap((r: K8sObject) =>
            (r.http?.paths ?? []).map((p: K8sObject) => p.backend),
          ),
        ];
        for (const backend of backends) {
          const service = backend?.service?.name ?? backend?.serviceName;
          if (typeof service !== 'string') continue;
          let target = services.get(`${ns(o)}/${service}`);
          if (!target) {
            target = out.node('LoadBalancer', `${ns(o)}/service/${service}`, {
              namespace: ns(o),
              k8s_kind: 'Service',
            });
            mentioned.add(target);
          }
          out.stamp(target, { internet_exposed: true, exposure_basis: 'ingress-backend' });
          out.edge('ROUTES_TO', id, target);
        }
      }

      // RBAC: roles, their escalation, and who is bound to them.
      const roleRules = new Map<string, { id: string; rules: PolicyRule[]; name: string }>();
      for (const o of objects.filter((x) => (x.kind === 'Role' || x.kind === 'ClusterRole') && name(x))) {
        const cluster = o.kind === 'ClusterRole';
        const roleName = cluster ? `clusterrole/${name(o)}` : `${ns(o)}/role/${name(o)}`;
        const id = out.node('IAM_Role', roleName, {
          k8s_kind: o.kind,
          ...(cluster ? {} : { namespace: ns(o) }),
        });
        roleRules.set(roleName, { id, rules: o.rules ?? [], name: name(o) });
        escalate(out, id, o.rules ?? [], name(o), !cluster, mentioned);
      }
      for (const o of objects.filter(
        (x) => (x.kind === 'RoleBinding' || x.kind === 'ClusterRoleBinding') && x.roleRef,
      )) {
        const toCluster = o.roleRef.kind === 'ClusterRole';
        let role: string;
        if (o.kind === 'RoleBinding' && toCluster) {
          // A ClusterRole bound in one namespace grants its rules there only.
          const bound = roleRules.get(`clusterrole/${o.roleRef.name}`);
          role = out.node('IAM_Role', `${ns(o)}/clusterrole/${o.roleRef.name}`, {
            k8s_kind: 'ClusterRole',
            namespace: ns(o),
            bound_in_namespace: true,
          });
          if (bound) escalate(out, role, bound.rules, bound.name, true, mentioned);
        } else {
          const roleName = toCluster ? `clusterrole/${o.roleRef.name}` : `${ns(o)}/role/${o.roleRef.name}`;
          role = roleRules.get(roleName)?.id ?? out.node('IAM_Role', roleName, { k8s_kind: o.roleRef.kind });
          if (!roleRules.has(roleName)) {
            mentioned.add(role);
            // A binding to a role the dump does not hold: judged by its name alone.
            escalate(out, role, [], String(o.roleRef.name), !toCluster, mentioned);
          }
        }
        for (const subject of o.subjects ?? []) {
          if (subject?.kind !== 'ServiceAccount' || typeof subject.name !== 'string') continue;
          const sa = out.node('ServiceAccount', `${subject.namespace ?? ns(o)}/${subject.name}`, {
            namespace: subject.namespace ?? ns(o),
          });
          out.edge('ASSUMES', sa, role, { properties: { binding: `${o.kind}/${name(o)}` } });
        }
      }
      // Service accounts and nodes the dump lists on their own.
      for (const o of objects.filter((x) => x.kind === 'ServiceAccount' && name(x)))
        out.node('ServiceAccount', `${ns(o)}/${name(o)}`, { namespace: ns(o) });
      for (const o of objects.filter((x) => x.kind === 'Node' && name(x)))
        out.node('VirtualMachine', `node/${name(o)}`, { k8s_node: true });
      const ignored = [...new Set(objects.map((o) => String(o.kind)).filter((k) => !USED_KINDS.has(k)))];
      const warnings = ignored.length ? [`k8s dump: kinds not used: ${ignored.sort().join(', ')}`] : [];
      return { envelopes: [out.build()], warnings, mentioned: [...mentioned] };
    },
  };
}

function escalate(
  out: EnvelopeBuilder,
  roleId: string,
  rules: PolicyRule[],
  roleName: string,
  namespaced: boolean,
  mentioned: Set<string>,
): void {
  const primitives = rbacEscalation(rules, roleName);
  if (!primitives.length) return;
  const admin = out.node('IAM_Role', CLUSTER_ADMIN, {
    synthetic: true,
    crown_jewel: true,
    crown_jewel_basis: 'synthetic:cluster-admin',
  });
  mentioned.add(admin);
  out.edge('CAN_ESCALATE_TO', roleId, admin, {
    ...(namespaced && { resource_scoped: true }),
    properties: { primitives, scope: namespaced ? 'namespace' : 'cluster' },
  });
}

function templateOf(o: K8sObject): K8sObject | undefined {
  return o.kind === 'CronJob' ? o.spec?.jobTemplate?.spec?.template : o.spec?.template;
}

/** Every object of a List (nested Lists too), or the object itself. */
function flatten(body: unknown): K8sObject[] {
  if (!body || typeof body !== 'object')
    throw reportProblem('k8s', [{ pointer: '/', detail: 'expected a Kubernetes object or List' }]);
  const o = body as K8sObject;
  if (Array.isArray(o.items)) return o.items.flatMap((item: unknown) => flatten(item));
  if (Array.isArray(body)) return body.flatMap((item) => flatten(item));
  if (typeof o.kind !== 'string')
    throw reportProblem('k8s', [{ pointer: '/kind', detail: 'a Kubernetes object names its kind' }]);
  return [o];
}

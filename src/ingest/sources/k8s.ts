// Source `k8s`: a Kubernetes dump as `kubectl get ... -o json` writes it (a `List` of mixed kinds, or a
// per-kind list, its items of the list's kind when they do not say, as the API server and the kubelet write
// them) or multi-document YAML (parsed at the listener). Mapping and meaning: DECISIONS.md
// "Kubernetes mapping" and "Path truth across sources".
// - One workload (`Service`) per controller: a Pod owned (ownerReferences) by a ReplicaSet owned by a
//   Deployment is the Deployment's workload; so are StatefulSet, DaemonSet, Job, CronJob and Argo Rollout
//   pods.
// - Each container, init container and ephemeral (`kubectl debug`) container draws `Service DEPENDS_ON
//   Image`, a reference the graph writer joins to the scanned image (digest from the pod's status when it
//   has one, else tag, else bare name); every kind is read (src/rules/k8s/pod-containers.ts), by the
//   escape rules too.
// - Ingress ROUTES_TO Service, Service EXPOSES workload (selector); only a LoadBalancer or NodePort Service
//   is a start of its own. Gateway API Gateways (k8s-gateway-api.ts) and Istio Gateways (k8s-istio.ts) are
//   front doors like an Ingress, routing to the Services of the routes bound to them. A host port (a
//   container port's `hostPort`, or any container port on the host's network) only marks its workload
//   `host_port_exposed`: it is exposed as far as its node is, which the dump does not say. The workload
//   ASSUMES its service account unless its token is not mounted.
// - RBAC (src/rules/k8s/): roles granting an escalation primitive draw CAN_ESCALATE_TO the cluster's
//   synthetic cluster-admin; bindings to service accounts, users and groups (system:serviceaccounts[:ns],
//   system:authenticated, system:unauthenticated) draw ASSUMES; a User named
//   `system:serviceaccount:<ns>:<name>` is that service account (its token's username). An aggregated
//   ClusterRole has the rules of the ClusterRoles its selectors match (aggregation.ts), as the controller
//   manager fills them.
// - Container escape (T1611, one rule file each) leads to the pod's node, a target; a known node holds
//   the tokens of the service accounts of the pods scheduled on it (T1528).
// - Secrets a workload is given (env, envFrom, secret volumes) are Secret nodes it can read: names only.
// - OpenShift (k8s-openshift.ts): a Route is a front door like an Ingress, a DeploymentConfig a controller
//   (its ImageChange triggers' images read), a Template rendered as `oc process` renders it by default, a
//   legacy `authorization.openshift.io` binding read as that API reads it.
// Names: `<namespace>/<name>` for workloads and service accounts, `<namespace>/<kind>/<name>` for
// ingresses, services, roles and secrets (`gateway`, `istio-gateway`, `route` for the other front doors),
import type { IngestSource } from './source.js';
import { flatten } from './k8s/dump.js';
import { DumpMapping } from './k8s/mapping.js';
import { clusterOf } from './k8s/names.js';

export { CLUSTER_ADMIN, UNSCHEDULED_NODE } from './k8s/mapping.js';
export {
  clusterOf,
  controllerOfReplicaSet,
  isClusterName,
  serviceAccountOfUser,
  workloadOf,
} from './k8s/names.js';
export { objectNode } from './k8s/object-node.js';

export function createK8sSource(): IngestSource {
  return {
    name: 'k8s',
    version: '3',
    description:
      'Kubernetes dumps (JSON List or YAML): one workload per controller, its images, ingress exposure, RBAC escalation, container escape to the node.',
    snapshots: 'query',
    normalize({ body, query, receivedAt }) {
      const cluster = clusterOf(query);
      return new DumpMapping(cluster, receivedAt).map(flatten(body));
    },
  };
}

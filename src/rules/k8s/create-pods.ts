// POD_CREATE: creating a pod runs code under any service account of its namespace (and privileged, on any
// node). Creating or changing a controller (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob,
// ReplicationController) creates the pods for you, so it counts the same.
import { grantOf, requests, type ApiRequest, type RbacPrimitive } from './rbac-rule.js';

const POD_MAKERS: readonly ApiRequest[] = [
  ...requests('', ['pods'], ['create']),
  ...requests('', ['replicationcontrollers'], ['create', 'update', 'patch']),
  ...requests(
    'apps',
    ['deployments', 'statefulsets', 'daemonsets', 'replicasets'],
    ['create', 'update', 'patch'],
  ),
  ...requests('batch', ['jobs', 'cronjobs'], ['create', 'update', 'patch']),
];

export const createPods: RbacPrimitive = {
  name: 'create-pods',
  grants: (rules, _role, scope) => grantOf(rules, POD_MAKERS, scope),
};

// Names the k8s source shares with the sources that name cluster objects (falco, trivy): the cluster a
// report describes, a service account's username, the workload a pod or a ReplicaSet belongs to by name.
import { ProblemError } from '../../../http/problems.js';

const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,252}$/;

/** Whether a value may name a cluster: it is the first part of every qualified name, so no `/`. */
export function isClusterName(value: string): boolean {
  return CLUSTER_NAME.test(value);
}

/**
 * The cluster a report describes: `?cluster=`, or the one `snapshot=cluster:<name>` names (400 naming
 * `/query/cluster` when malformed or contradicting). Shared by the sources that name cluster objects (k8s, falco).
 */
export function clusterOf(query: Record<string, string | undefined>): string | undefined {
  const fromSnapshot = query.snapshot?.startsWith('cluster:')
    ? query.snapshot.slice('cluster:'.length)
    : undefined;
  const given = query.cluster;
  if (given !== undefined && !CLUSTER_NAME.test(given)) {
    throw new ProblemError('invalid-query', `/query/cluster: expected a cluster name`, {
      errors: [
        {
          pointer: '/query/cluster',
          value: given,
          detail: 'expected a cluster name (letters, digits, `.`, `_`, `:` and `-`, no `/`)',
        },
      ],
    });
  }
  // The snapshot's cluster is the same first part of every name: no `/` there either.
  if (fromSnapshot !== undefined && !CLUSTER_NAME.test(fromSnapshot)) {
    throw new ProblemError('invalid-query', `/query/snapshot: expected cluster:<name>`, {
      errors: [
        {
          pointer: '/query/snapshot',
          value: query.snapshot,
          detail: 'expected cluster:<name> (letters, digits, `.`, `_`, `:` and `-`, no `/`)',
        },
      ],
    });
  }
  if (given !== undefined && fromSnapshot !== undefined && given !== fromSnapshot) {
    throw new ProblemError('invalid-query', `/query/cluster: names another cluster than snapshot`, {
      errors: [
        {
          pointer: '/query/cluster',
          value: given,
          detail: `snapshot=cluster:${fromSnapshot} names another cluster`,
        },
      ],
    });
  }
  return given ?? fromSnapshot;
}

/** A namespace's name (a DNS-1123 label) and an account's (a DNS-1123 subdomain), as the API checks them. */
const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SERVICE_ACCOUNT_USER = 'system:serviceaccount:';

/**
 * The service account a username is, when it is one: the API server authenticates an account's token as
 * exactly `system:serviceaccount:<namespace>:<name>`, and splits such a name back only when it has those two
 * parts, each a valid name (serviceaccount.SplitUsername). A binding's User subject of that name, or an audit
 * event's user, is therefore that account; anything else (too few or too many parts, the plural group
 * prefix `system:serviceaccounts`) is not. Shared by the sources that read usernames (k8s, falco).
 */
export function serviceAccountOfUser(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USER)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USER.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts;
  if (!NAMESPACE_NAME.test(namespace) || name.length > 253 || !SUBDOMAIN.test(name)) return undefined;
  return { namespace, name };
}

/**
 * The alphabet of the names Kubernetes generates (k8s.io/apimachinery/pkg/util/rand: no vowels, no `0`, `1`,
 * `3`, so that no word and no look-alike is ever spelt): a pod's random suffix (`generateName`, 5 of them) and
 * a Deployment's pod-template-hash (a 32-bit hash written in decimal, each digit mapped into it: 10 at most,
 * 5 or more in all but a handful of the hashes a Deployment can have).
 */
const GENERATED = '[bcdfghjklmnpqrstvwxz2456789]';
/**
 * What a controller appends to the pods it names, its own name before it: a Deployment's ReplicaSet and pod
 * (`<deployment>-<pod-template-hash>-<5>`), or a CronJob's Job and pod (`<cronjob>-<minutes since 1970>-<5>`).
 * Nothing else is stripped: a DaemonSet's or a Job's `-<5>` is a static pod's `-<node>` too
 * (`kube-apiserver-node1`), and a StatefulSet's `-<ordinal>` a name's own number; the k8s source aliases
 * those pods on their workloads by their whole names.
 */
const CONTROLLER_POD_SUFFIX = new RegExp(`-(?:${GENERATED}{5,10}|[0-9]{8,10})-${GENERATED}{5}$`);

/**
 * The workload Falco names for a pod, from its name alone: a Deployment's pod `checkout-7d4b9c8f6d-x2x9q`
 * is `checkout`; any other pod (`kube-scheduler-bpnn6`, `web-0`, `reviews-v1-abcde`) is itself.
 */
export function workloadOf(pod: string): string {
  return pod.replace(CONTROLLER_POD_SUFFIX, '');
}

/**
 * The Deployment a ReplicaSet named `<deployment>-<pod-template-hash>` belongs to, read from its name alone
 * (a report that names the ReplicaSet, not the dump that holds its owner): the hash in the generated alphabet,
 * or in decimal as Kubernetes wrote it before 1.8. Undefined for a name with no such suffix.
 */
export function controllerOfReplicaSet(name: string): string | undefined {
  const owner = name.replace(REPLICA_SET_SUFFIX, '');
  return owner !== name && owner !== '' ? owner : undefined;
}
const REPLICA_SET_SUFFIX = new RegExp(`-(?:${GENERATED}{5,10}|[0-9]{6,10})$`);

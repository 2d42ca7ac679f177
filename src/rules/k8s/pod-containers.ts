// The containers of a pod spec: every kind the kubelet runs in the pod. Init and app containers, and the
// ephemeral containers `kubectl debug` adds to a running pod (pods/ephemeralcontainers): one of those runs
// with the pod's service account, on its node, may mount the pod's volumes and may be privileged. Whatever
// reads a pod's containers (the escape rules, the images a workload runs, the secrets it is given) reads
// them through this one list, so that no reader forgets a kind.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- containers as the API returns them
type Container = Record<string, any>;

/** The fields of a pod spec that list containers, in the order the kubelet starts them. */
export const CONTAINER_FIELDS = ['initContainers', 'containers', 'ephemeralContainers'] as const;
export type ContainerField = (typeof CONTAINER_FIELDS)[number];

/** Every container of a pod spec (objects only: a malformed entry reads as absent), in that order. */
export function podContainers(spec: Partial<Record<ContainerField, unknown>>): Container[] {
  const out: Container[] = [];
  for (const field of CONTAINER_FIELDS) {
    const list = spec[field];
    if (Array.isArray(list)) for (const c of list) if (c && typeof c === 'object') out.push(c);
  }
  return out;
}

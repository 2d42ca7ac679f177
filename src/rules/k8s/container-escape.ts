// Container escape (ATT&CK T1611): a pod that can reach its node's kernel or files. Returns the reasons.
const SENSITIVE_HOST_PATHS = [
  '/',
  '/var/run/docker.sock',
  '/run/containerd/containerd.sock',
  '/proc',
  '/etc',
  '/var/lib/kubelet',
  '/var/log',
  '/root',
  '/home',
];
const DANGEROUS_CAPABILITIES = ['SYS_ADMIN', 'SYS_PTRACE', 'SYS_MODULE', 'DAC_READ_SEARCH', 'ALL'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pod spec as the API returns it
type PodSpec = Record<string, any>;

export function escapeReasons(spec: PodSpec): string[] {
  const reasons: string[] = [];
  if (spec.hostPID) reasons.push('hostPID');
  if (spec.hostIPC) reasons.push('hostIPC');
  if (spec.hostNetwork) reasons.push('hostNetwork');
  for (const volume of spec.volumes ?? []) {
    const hostPath = volume?.hostPath?.path;
    if (
      typeof hostPath === 'string' &&
      SENSITIVE_HOST_PATHS.some((p) => hostPath === p || (p !== '/' && hostPath.startsWith(`${p}/`)))
    )
      reasons.push(`hostPath:${hostPath}`);
  }
  for (const container of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    const context = container?.securityContext ?? {};
    if (context.privileged === true) reasons.push(`privileged:${container.name}`);
    for (const cap of context.capabilities?.add ?? [])
      if (DANGEROUS_CAPABILITIES.includes(String(cap).toUpperCase())) reasons.push(`capability:${cap}`);
  }
  return [...new Set(reasons)];
}

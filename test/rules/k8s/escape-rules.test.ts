// Every container-escape rule (src/rules/k8s/, after KubeHound's attacks) on a minimal pod spec, each with
// a negative twin that must not fire, and again from an ephemeral container alone; hostNetwork and hostIPC
// alone are not escapes.
import { describe, expect, it } from 'vitest';
import { asksForHost, ESCAPE_RULES, podEscapes } from '../../../src/rules/k8s/container-escape.js';
import type { PodSpec } from '../../../src/rules/k8s/escape-rule.js';

const container = (securityContext: Record<string, unknown> = {}, volumeMounts: unknown[] = []) => ({
  name: 'app',
  image: 'alpine:3.19',
  securityContext,
  volumeMounts,
});
const hostMount = (path: string, readOnly = false, context: Record<string, unknown> = {}): PodSpec => ({
  containers: [container(context, [{ name: 'host', mountPath: '/host', readOnly }])],
  volumes: [{ name: 'host', hostPath: { path } }],
});
const rules = (spec: PodSpec) => podEscapes(spec).map((e) => e.rule);

// [rule, KubeHound attack, a spec that fires it, its negative twin]
const CASES: [string, string, PodSpec, PodSpec][] = [
  [
    'module-load',
    'CE_MODULE_LOAD',
    { containers: [container({ capabilities: { add: ['SYS_MODULE'] } })] },
    { containers: [container({ capabilities: { add: ['NET_BIND_SERVICE'] } })] },
  ],
  [
    'nsenter',
    'CE_NSENTER',
    { hostPID: true, containers: [container({ privileged: true })] },
    { hostPID: true, containers: [container({ privileged: false })] },
  ],
  [
    'privileged-mount',
    'CE_PRIV_MOUNT',
    { containers: [container({ privileged: true })] },
    { containers: [container({ allowPrivilegeEscalation: true })] },
  ],
  [
    'sys-ptrace',
    'CE_SYS_PTRACE',
    { hostPID: true, containers: [container({ capabilities: { add: ['SYS_PTRACE'] } })] },
    { containers: [container({ capabilities: { add: ['SYS_PTRACE'] } })] },
  ],
  ['core-pattern', 'CE_UMH_CORE_PATTERN', hostMount('/proc/sys/kernel'), hostMount('/proc/sys/kernel', true)],
  [
    'var-log-symlink',
    'CE_VAR_LOG_SYMLINK',
    hostMount('/var/log'),
    hostMount('/var/log', false, { runAsNonRoot: true }),
  ],
  [
    'runtime-socket',
    'EXPLOIT_CONTAINERD_SOCK',
    hostMount('/run/containerd/containerd.sock', true),
    hostMount('/run/containerd/config', true),
  ],
  ['host-write', 'EXPLOIT_HOST_WRITE', hostMount('/etc'), hostMount('/etc', true)],
  ['host-read', 'EXPLOIT_HOST_READ', hostMount('/root/.ssh', true), hostMount('/srv/data', true)],
  [
    'kubelet-dirs',
    'EXPLOIT_HOST_TRAVERSE',
    hostMount('/var/lib/kubelet', true),
    hostMount('/var/lib/docker-data', true),
  ],
];

describe('k8s escape rules: each fires on a minimal pod and not on its twin', () => {
  it('covers every rule file', () => {
    expect(CASES.map((c) => c[0]).sort()).toEqual(ESCAPE_RULES.map((r) => r.name).sort());
  });

  it.each(CASES)('%s (%s)', (rule, kubehound, positive, negative) => {
    const fired = podEscapes(positive).find((e) => e.rule === rule);
    expect(fired).toMatchObject({ kubehound });
    expect(fired!.evidence.length).toBeGreaterThan(0);
    expect(rules(negative)).not.toContain(rule);
  });

  it('reads docker and CRI-O sockets, and a mount of their directory', () => {
    expect(rules(hostMount('/var/run/docker.sock'))).toContain('runtime-socket');
    expect(rules(hostMount('/var/run/crio/crio.sock'))).toContain('runtime-socket');
    expect(rules(hostMount('/var/run'))).toContain('runtime-socket');
  });

  it('host-write: a writable /etc, or a part of it the node runs or trusts (cron, systemd, sshd, sudoers)', () => {
    for (const path of [
      '/etc',
      '/etc/cron.d',
      '/etc/systemd/system',
      '/etc/ssh',
      '/etc/sudoers.d',
      '/etc/kubernetes/manifests',
    ])
      expect(rules(hostMount(path)), path).toContain('host-write');
  });

  it("twin: a writable part of /etc the node neither runs nor trusts is no host write (the API server's secrets)", () => {
    for (const path of ['/etc/kubernetes/secrets', '/etc/ssl/certs', '/etc/cni/net.d', '/etc/systemd-data'])
      expect(rules(hostMount(path)), path).not.toContain('host-write');
  });

  it("reads the sockets of k3s and RKE2, MicroK8s, cri-dockerd and dockershim, and k3s's run directory", () => {
    for (const path of [
      '/run/k3s/containerd/containerd.sock',
      '/var/run/k3s/containerd/containerd.sock',
      '/run/k3s/containerd',
      '/var/snap/microk8s/common/run/containerd.sock',
      '/var/run/cri-dockerd.sock',
      '/run/dockershim.sock',
    ])
      expect(rules(hostMount(path, true)), path).toContain('runtime-socket');
  });

  it("twin: k3s's socket for a container that cannot run as root, or a k3s directory beside it, is no escape", () => {
    expect(rules(hostMount('/run/k3s/containerd/containerd.sock', true, { runAsUser: 1000 }))).toEqual([]);
    expect(rules(hostMount('/var/lib/rancher/k3s/agent/images', true))).toEqual([]);
    expect(rules(hostMount('/run/k3s/containerd-stats', true))).not.toContain('runtime-socket');
  });

  it('does not count a host path volume that no container mounts', () => {
    expect(
      rules({ containers: [container()], volumes: [{ name: 'host', hostPath: { path: '/' } }] }),
    ).toEqual([]);
  });

  it('reads init containers too', () => {
    expect(rules({ initContainers: [container({ privileged: true })], containers: [container()] })).toContain(
      'privileged-mount',
    );
  });

  // An ephemeral container (`kubectl debug`) runs in the pod, on its node: each rule reads it as it reads the
  // others. The same pod with the debug container asking for nothing is the twin.
  const app = { name: 'app', image: 'alpine:3.19' };
  const debugged = (spec: PodSpec): PodSpec => ({
    ...spec,
    containers: [app],
    ephemeralContainers: (spec.containers as PodSpec[]).map((c) => ({ ...c, name: 'debugger' })),
  });
  const plainDebugger = (spec: PodSpec): PodSpec => ({
    ...spec,
    containers: [app],
    ephemeralContainers: [{ name: 'debugger', image: 'busybox:1.36' }],
  });

  it.each(CASES)('%s fires on an ephemeral container alone, not on its plain twin', (rule, _k, positive) => {
    const fired = podEscapes(debugged(positive)).find((e) => e.rule === rule);
    expect(fired?.evidence.length).toBeGreaterThan(0);
    // Evidence names the debug container or the host path it mounts.
    expect(fired!.evidence.every((x) => x === 'container:debugger' || x.startsWith('hostPath:'))).toBe(true);
    expect(podEscapes(plainDebugger(positive))).toEqual([]);
  });

  it('reads an ephemeral container when it alone asks for the host (asksForHost)', () => {
    const privileged = debugged({ containers: [container({ privileged: true })] });
    expect(asksForHost(privileged)).toBe(true);
    expect(asksForHost(plainDebugger({ containers: [container({ privileged: true })] }))).toBe(false);
    expect(asksForHost(debugged({ containers: [container({ capabilities: { add: ['SYS_ADMIN'] } })] }))).toBe(
      true,
    );
  });

  it('hostNetwork and hostIPC alone do not escape', () => {
    expect(podEscapes({ hostNetwork: true, hostIPC: true, containers: [container()] })).toEqual([]);
    expect(podEscapes({ hostPID: true, containers: [container()] })).toEqual([]);
  });

  it('a root mount read-write escapes by several rules at once', () => {
    expect(rules(hostMount('/'))).toEqual(
      expect.arrayContaining([
        'host-write',
        'host-read',
        'kubelet-dirs',
        'runtime-socket',
        'var-log-symlink',
      ]),
    );
  });
});

// EXPLOIT_HOST_WRITE: a writable mount of a host directory the node executes or trusts (the root, /etc, a
// root or user home, cron, the kubelet's static pod manifests, binaries) gives code execution on the node.
// Those directories are root's: a container that cannot run as root writes none of them. Under /etc only
// what the node runs or trusts counts (cron, systemd and init scripts, the loader's preload, sudoers, sshd,
// the account files): a writable /etc/kubernetes/secrets or /etc/ssl holds nothing the node executes.
import { covers, overlaps, type EscapeRule } from './escape-rule.js';

// The root itself is covered: a mount of `/` reaches every one of these. Any part of them counts.
const WRITABLE_TARGETS = [
  '/root',
  '/home',
  '/bin',
  '/sbin',
  '/usr',
  '/lib',
  '/boot',
  '/var/spool/cron',
  '/etc/kubernetes/manifests',
  '/etc/crontab',
  '/etc/cron.d',
  '/etc/cron.hourly',
  '/etc/cron.daily',
  '/etc/cron.weekly',
  '/etc/cron.monthly',
  '/etc/systemd',
  '/etc/init.d',
  '/etc/rc.local',
  '/etc/profile.d',
  '/etc/ld.so.preload',
  '/etc/ld.so.conf.d',
  '/etc/sudoers',
  '/etc/sudoers.d',
  '/etc/ssh',
  '/etc/passwd',
  '/etc/shadow',
];
/** Directories whose every part is not dangerous: only a mount of them (or a parent) counts. */
const WHOLE_ONLY = ['/etc'];

export const hostWrite: EscapeRule = {
  name: 'host-write',
  kubehound: 'EXPLOIT_HOST_WRITE',
  fires: (pod) =>
    pod.hostMounts
      .filter(
        (m) =>
          !m.readOnly &&
          m.rootMount &&
          (WRITABLE_TARGETS.some((target) => overlaps(m.path, target)) ||
            WHOLE_ONLY.some((target) => covers(m.path, target))),
      )
      .map((m) => `hostPath:${m.path}`),
};

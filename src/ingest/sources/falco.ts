// Source `falco`: Falco JSON alerts (one alert, an array, or NDJSON at the listener), each `{rule,
// priority, output, output_fields, time?, source?}`. An alert is observed evidence: the workload it fired
// in (`k8s.ns.name` + `k8s.pod.name`, joined to the k8s dump's workload by stripping the suffix a Deployment
// or CronJob generates, or by the pod names the dump aliases on its StatefulSet, DaemonSet and Job workloads;
// else `container.name`)
// is marked `runtime_observed`, so hops into it are priced with basis `runtime` (docs/model.md). `container.image.repository` links the workload to its image (joined to the scan).
// A Kubernetes audit alert marks the acting service account or user; a CloudTrail alert the IAM user or role
// (`ct.user.arn`, or `ct.user` typed by `ct.user.identitytype`); a host alert its host. An alert naming none
// of these is skipped and said; a report of only such alerts is refused, naming the field.
// Clusters: with `?cluster=<name>` (or `snapshot=cluster:<name>`, validated as the k8s source does), or a
// cluster named in the alert's output_fields (`k8s.cluster.name`, or `cluster`, as a Falcosidekick custom
// field adds it: Falco itself has no such field), names are qualified as the k8s source qualifies a dump's
// (`<cluster>/<namespace>/<workload>`, `<cluster>/user/<name>`, `<cluster>/node/<hostname>`), so an alert
// joins the workload of its own cluster only.
import { parseImageRef } from '../../identity/image-ref.js';
import { ACCOUNT_UNKNOWN } from '../../graph/account-identity.js';
import { accountParameter, parseIamArn, qualify } from './account.js';
import { EnvelopeBuilder } from './envelope-builder.js';
import { clusterOf, isClusterName, serviceAccountOfUser, workloadOf } from './k8s.js';
import { reportProblem, reportSchema } from './report-schema.js';
import type { IngestSource } from './source.js';

interface FalcoAlert {
  rule: string;
  priority: string;
  output?: string;
  output_fields: Record<string, unknown>;
  time?: string;
  source?: string;
  tags?: string[];
  hostname?: string;
}

/**
 * Fields naming the controller a pod belongs to, k8smeta plugin first, then Falco's older k8s client: a
 * Deployment's, else a ReplicationController's, else a ReplicaSet of no Deployment (its own workload).
 */
const OWNER_FIELDS = [
  'k8smeta.deployment.name',
  'k8s.deployment.name',
  'k8smeta.rc.name',
  'k8s.rc.name',
  'k8smeta.rs.name',
  'k8s.rs.name',
];

/** Where an alert may name its cluster: OpenTelemetry's attribute, or a Falcosidekick custom field. */
const CLUSTER_FIELDS = ['k8s.cluster.name', 'cluster'];

const PRIORITY_RANK = [
  'debug',
  'informational',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

export function createFalcoSource(): IngestSource {
  const alert = {
    type: 'object',
    // `output` is left out under `json_include_output_property: false`: the fields say what it would.
    required: ['rule', 'priority', 'output_fields'],
    properties: {
      rule: { type: 'string', minLength: 1 },
      priority: { type: 'string', minLength: 1 },
      output: { type: 'string' },
      output_fields: { type: 'object' },
      time: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
    },
  };
  const check = reportSchema<FalcoAlert | FalcoAlert[]>('falco', {
    if: { type: 'array' },
    then: { type: 'array', minItems: 1, items: alert },
    else: alert,
  });
  return {
    name: 'falco',
    version: '2',
    description:
      'Falco JSON alerts (one, an array, or NDJSON): runtime evidence on the workloads they fired in.',
    snapshots: 'query',
    normalize({ body, query, receivedAt }) {
      // Falco's default text output (`<time>: <Priority> <message>`), as a YAML reader takes its lines:
      // refused by name, saying how to have Falco write JSON, rather than as an alert missing `rule`.
      if (isFalcoTextLog(body))
        throw reportProblem('falco', [
          {
            pointer: '/',
            detail:
              "Falco's text output (`<time>: <Priority> <message>`), not its JSON alerts: set `json_output: true` " +
              '(and `json_include_output_property: true`) in falco.yaml, or run falco with `-o json_output=true`',
          },
        ]);
      const queried = clusterOf(query);
      const queriedAccount = accountParameter(query);
      const checked = check(body);
      const alerts = Array.isArray(checked) ? checked : [checked];
      const out = new EnvelopeBuilder('falco', 'runtime', receivedAt);
      const seen = new Map<
        string,
        { rules: Set<string>; priority: string; last: string; tags: Set<string>; count: number }
      >();
      const refused: { pointer: string; detail: string }[] = [];
      const unattached: { pointer: string; source: string; ambiguousUser: boolean }[] = [];
      alerts.forEach((a, index) => {
        const f = a.output_fields;
        // Falco writes a field it could not read as null or `<NA>`: absent either way.
        const str = (key: string) =>
          typeof f[key] === 'string' && f[key] && f[key] !== '<NA>' ? (f[key] as string) : undefined;
        // The runtime's fields, or the k8smeta plugin's (read from the API server through k8s-metacollector).
        const namespace = str('k8s.ns.name') ?? str('k8smeta.ns.name');
        const pod = str('k8s.pod.name') ?? str('k8smeta.pod.name');
        // The controller the plugin names (or Falco's older k8s client), when it names one: the k8s
        // source's workload, whatever the pod is called.
        const controller = OWNER_FIELDS.map(str).find((v) => v !== undefined);
        // Falco's output text carries the same fields when output_fields lacks them.
        // Falco names a process outside any container `host` (container.id and container.name both
        // `host`): such an alert is on the machine (`hostname`), not on a workload called `host`.
        const containerName = str('container.name') ?? /container_name=(\S+)/.exec(a.output ?? '')?.[1];
        const onHost = str('container.id') === 'host' || containerName === 'host';
        const container = onHost ? undefined : containerName;
        const auditUser = str('ka.user.name');
        const at = Array.isArray(checked) ? `/${index}` : '';
        const field = CLUSTER_FIELDS.find((key) => str(key) !== undefined);
        const named = field ? str(field) : undefined;
        if (field && named !== undefined && (!isClusterName(named) || (queried && named !== queried))) {
          refused.push({
            pointer: `${at}/output_fields/${field}`,
            detail: !isClusterName(named)
              ? 'expected a cluster name (letters, digits, `.`, `_`, `:` and `-`, no `/`)'
              : `names cluster ${named}, the query names ${queried}`,
          });
          return;
        }
        const cluster = queried ?? named;
        const q = (name: string) => (cluster ? `${cluster}/${name}` : name);
        let id: string | undefined;
        if (namespace && pod)
          id = out.node('Service', q(`${namespace}/${controller ?? workloadOf(pod)}`), {
            cluster,
            namespace,
            pod,
          });
        else if (container) id = out.node('Service', container, { container_id: str('container.id') });
        else if (auditUser) {
          const sa = serviceAccountOfUser(auditUser);
          id = sa
            ? out.node('ServiceAccount', q(`${sa.namespace}/${sa.name}`), {
                cluster,
                namespace: sa.namespace,
              })
            : out.node('User', q(`user/${auditUser}`), { cluster, k8s_user: auditUser });
        }
        // A CloudTrail plugin alert (`source: aws_cloudtrail`) is about the IAM user or role that made the
        // call, named as the iam source names it (an assumed role's session is its role): by its ARN, else by
        // the name `ct.user` gives with what says whether it is a user or a role (the plugin's own rules
        // print only `ct.user`, `ct.srcip` and `ct.region`). Without an account it joins the one identity of
        // that label and name in any account (DECISIONS "Accounts").
        let ambiguousUser = false;
        if (!id) {
          // An ARN says what the caller is; one of no user or role (the root user) is no identity here.
          const arn = str('ct.user.arn');
          const named = arn ? iamIdentityOf(arn) : cloudTrailIdentity(str, queriedAccount);
          if (named === 'ambiguous') ambiguousUser = true;
          else if (named)
            id = out.node(named.label, named.account ? qualify(named.name, named.account) : named.name, {
              ...(named.account ? { account: named.account } : { [ACCOUNT_UNKNOWN]: true }),
            });
        }
        // A host in a known cluster is its node, as the k8s source names it.
        // Not a CloudTrail alert's: it is about an AWS principal, not the machine Falco runs on.
        if (!id && a.hostname && a.source !== 'aws_cloudtrail')
          id = cluster
            ? out.node('VirtualMachine', q(`node/${a.hostname}`), {
                cluster,
                k8s_node: true,
                hostname: a.hostname,
              })
            : out.node('VirtualMachine', a.hostname, { hostname: a.hostname });
        if (!id) {
          // Said, not refused: one alert of a plugin the engine has no node for must not cost the others.
          unattached.push({ pointer: `${at}/output_fields`, source: a.source ?? 'syscall', ambiguousUser });
          return;
        }
        const repository = str('container.image.repository');
        if (repository && id.startsWith('Service:')) {
          const ref = parseImageRef(
            `${repository}${str('container.image.tag') ? `:${str('container.image.tag')}` : ''}`,
          );
          if (ref) {
            const image = out.node('Image', ref.canonical, {
              resolve_ref: ref.raw,
              image_ref: ref.raw,
              registry: ref.registry,
            });
            out.edge('DEPENDS_ON', id, image, { properties: { via: 'runtime' } });
          }
        }
        const entry = seen.get(id) ?? {
          rules: new Set(),
          priority: 'debug',
          last: '',
          tags: new Set(),
          count: 0,
        };
        entry.count++;
        entry.rules.add(a.rule);
        for (const t of a.tags ?? []) if (/^T\d{4}/.test(t)) entry.tags.add(t);
        if (rank(a.priority) > rank(entry.priority)) entry.priority = a.priority.toLowerCase();
        const time = a.time ?? receivedAt;
        if (time > entry.last) entry.last = time;
        seen.set(id, entry);
      });
      if (refused.length) throw reportProblem('falco', refused);
      const detail =
        'the alert names no container, pod, Kubernetes user, IAM identity (`ct.user.arn`, or `ct.user` with ' +
        '`ct.user.identitytype`) or host to attach it to';
      if (unattached.length && !seen.size)
        throw reportProblem(
          'falco',
          unattached.map(({ pointer, ambiguousUser }) => ({
            pointer,
            detail: ambiguousUser ? AMBIGUOUS_USER : detail,
          })),
        );
      const warnings = unattached.length
        ? [
            `falco report: ${unattached.length} alert(s) not attached (${[...new Set(unattached.map((u) => u.source))].sort().join(', ')}): ` +
              `${detail}; first at ${unattached[0].pointer}`,
          ]
        : [];
      const ambiguous = unattached.filter((u) => u.ambiguousUser);
      if (ambiguous.length)
        warnings.push(
          `falco report: ${ambiguous.length} CloudTrail alert(s): ${AMBIGUOUS_USER}; first at ${ambiguous[0].pointer}`,
        );
      for (const [id, entry] of seen) {
        out.stamp(id, {
          runtime_observed: true,
          runtime_rules: [...entry.rules],
          runtime_priority: entry.priority,
          runtime_last_alert: entry.last,
          runtime_alert_count: entry.count,
          runtime_attack: entry.tags.size ? [...entry.tags] : undefined,
        });
      }
      return { envelopes: [out.build()], warnings };
    },
  };
}

/**
 * The IAM identity an AWS principal ARN names, as the iam source names it: a user, a role, or the role an
 * STS session assumed (`arn:aws:sts::<account>:assumed-role/<role>/<session>`). Undefined for any other.
 */
const AMBIGUOUS_USER =
  "`ct.user` alone names a user or a role: add `%ct.user.identitytype` (or `%ct.user.arn`) to the rule's output";

/** What `ct.user` names for each CloudTrail identity type the graph has a node for. */
const CLOUDTRAIL_IDENTITY: Readonly<Record<string, 'User' | 'IAM_Role'>> = {
  IAMUser: 'User',
  AssumedRole: 'IAM_Role',
};

/**
 * The IAM identity of a CloudTrail alert without an ARN: `ct.user` (an IAM user's name, or the role an
 * assumed-role session was issued by) as `ct.user.identitytype` types it, else as `ct.user.principalid`'s
 * unique-id prefix does (`AIDA` a user, `AROA` a role); `ambiguous` when nothing says which; undefined for
 * what the graph has no node for (the root user, an AWS service, a federated user, `<NA>`). The account:
 * `ct.user.accountid`, else `?account=`.
 */
function cloudTrailIdentity(
  str: (key: string) => string | undefined,
  queriedAccount: string | undefined,
): { label: 'User' | 'IAM_Role'; name: string; account?: string } | 'ambiguous' | undefined {
  const name = str('ct.user');
  if (
    !name ||
    ['AssumedRole', 'AWSAccount', 'FederatedUser'].includes(name) ||
    name.includes('.amazonaws.com')
  )
    return undefined;
  const type = str('ct.user.identitytype');
  const prefix = str('ct.user.principalid')?.slice(0, 4);
  const label = type
    ? CLOUDTRAIL_IDENTITY[type]
    : prefix === 'AIDA'
      ? 'User'
      : prefix === 'AROA'
        ? 'IAM_Role'
        : 'ambiguous';
  if (label === undefined || label === 'ambiguous') return label;
  const stated = str('ct.user.accountid');
  const account = stated && /^\d{12}$/.test(stated) ? stated : queriedAccount;
  return { label, name, account };
}

function iamIdentityOf(
  arn: string | undefined,
): { label: 'User' | 'IAM_Role'; name: string; account: string } | undefined {
  if (!arn) return undefined;
  const assumed = /^arn:aws[a-z-]*:sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/.exec(arn.trim());
  if (assumed) return { label: 'IAM_Role', name: assumed[2], account: assumed[1] };
  const parsed = parseIamArn(arn);
  if (parsed?.kind === 'user') return { label: 'User', name: parsed.name, account: parsed.account };
  if (parsed?.kind === 'role') return { label: 'IAM_Role', name: parsed.name, account: parsed.account };
  return undefined;
}

/** A time as Falco's text output starts a line with: `17:20:21.235891000`, or ISO 8601 (`time_format_iso_8601`). */
const FALCO_TEXT_TIME = /^(\d{2}:\d{2}:\d{2}\.\d+|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+[+-]\d{4})$/;
const FALCO_TEXT_PRIORITY = /^(Emergency|Alert|Critical|Error|Warning|Notice|Informational|Info|Debug) \S/;

/**
 * Lines of Falco's text output read as a document: a string, or the mapping a YAML reader makes of them
 * (`{"17:20:21.235891000": "Notice A shell was spawned ..."}`). At least one line is an alert's.
 */
export function isFalcoTextLog(value: unknown): boolean {
  if (typeof value === 'string')
    return value.split('\n').some((line) => {
      const colon = line.indexOf(': ');
      return (
        colon > 0 &&
        FALCO_TEXT_TIME.test(line.slice(0, colon)) &&
        FALCO_TEXT_PRIORITY.test(line.slice(colon + 2))
      );
    });
  if (typeof value !== 'object' || value === null || Array.isArray(value) || 'rule' in value) return false;
  return Object.entries(value).some(
    ([key, text]) => FALCO_TEXT_TIME.test(key) && typeof text === 'string' && FALCO_TEXT_PRIORITY.test(text),
  );
}

function rank(priority: string): number {
  return PRIORITY_RANK.indexOf(priority.toLowerCase());
}

/** `checkout-7d4b9c8f6d-x2x9q` (a Deployment's pod) -> `checkout`; the k8s source aliases its other pods. */
export { workloadOf };

// A dump's mapping into one envelope, phase by phase (see k8s.ts for what is drawn and why).
import { parseImageRef } from '../../../identity/image-ref.js';
import { repositoryFromUrl } from '../../../identity/repository-name.js';
import {
  escapePrice,
  GROUP_MEMBERSHIP_PROBABILITY,
  NODE_TOKEN_THEFT_PROBABILITY,
  WORKLOAD_SECRET_PROBABILITY,
} from '../../../model/probability.js';
import { aggregateClusterRoles, type Aggregated } from '../../../rules/k8s/aggregation.js';
import { asksForHost, podEscapes } from '../../../rules/k8s/container-escape.js';
import { CONTAINER_FIELDS } from '../../../rules/k8s/pod-containers.js';
import { rbacEscalation, type PolicyRule, type RoleContext } from '../../../rules/k8s/index.js';
import { EnvelopeBuilder, type EdgeOptions } from '../envelope-builder.js';
import {
  bindingSubjects,
  buildOutputOf,
  roleRefKind,
  rulesOf,
  triggeredImageStreamTags,
} from '../k8s-openshift.js';
import { roleContextOf, rulesByRole, tokenEscalation } from '../k8s-rbac-context.js';
import { secretsRead, tokenSecretAccount, TOKEN_SECRET } from '../k8s-secrets.js';
import type { NormalizeOutput } from '../source.js';
import { ByNamespace } from './by-namespace.js';
import { isCollection, nameOf, nsOf, sortObjects, type K8sObject } from './dump.js';
import { serviceAccountOfUser } from './names.js';
import {
  addImages,
  hostPortsOf,
  lowerKind,
  mergeEscapes,
  NO_IMAGES,
  runningDigest,
  runsImage,
  type ImageUse,
} from './pod-specs.js';
import { drawGatewayApi, drawIngresses, drawIstio, drawRoutes, type DrawContext } from './front-doors.js';
import { internalLoadBalancer, selects, sourceRanges } from './service-exposure.js';
import { aliasesOf, collectWorkloads, distinct, type Claims, type Workload } from './workloads.js';

export const CLUSTER_ADMIN = 'cluster-admin';
export const UNSCHEDULED_NODE = 'unscheduled';

/** A service account drawn, and whether its ServiceAccount object says it mounts its token. */
interface Account {
  id: string;
  namespace: string;
  name: string;
  automount: boolean | undefined;
}

/**
 * One report's mapping, phase by phase, in the order its nodes and edges are drawn. A class, not closures
 * made inside normalize() for each report: V8 compiles these methods one by one with stable call targets,
 * where the one large function, its closures new on every report, deoptimized on "wrong call target" and
 * was recompiled (0.3 to 1.5 s of compile thread on issue 14's dump, on a 2-core host).
 */
export class DumpMapping implements DrawContext {
  readonly out: EnvelopeBuilder;
  readonly mentioned = new Set<string>();
  /** The accounts drawn, with whether the dump's ServiceAccount mounts their token (one lookup for both). */
  private readonly accounts = new ByNamespace<Account>();
  /** Every account drawn, in the order drawn (group membership goes through them in that order). */
  private readonly accountList: Account[] = [];
  /** Secrets the dump lists: `true`, or the account a service-account token Secret holds the token of. */
  private readonly listedSecrets = new ByNamespace<true | string>();
  private readonly imageIds = new Map<string, string | undefined>();
  /** Container images that are no image reference (`ko://...`, an unrendered `${IMAGE}`): said, not joined. */
  private readonly unreadImages = new Set<string>();
  private readonly tokensOnNode = new Map<string, Set<string>>();
  private admin: string | undefined;
  /** Binding subjects whose name or namespace is a map or a list (an unrendered template's). */
  private unnamedSubjects = 0;

  constructor(
    readonly cluster: string | undefined,
    receivedAt: string,
  ) {
    this.out = new EnvelopeBuilder('k8s', 'asset', receivedAt);
  }

  map(objects: K8sObject[]): NormalizeOutput {
    const sorted = sortObjects(objects);

    // Service accounts first: whether they mount their token decides the workloads' ASSUMES.
    for (const o of sorted.serviceAccounts) {
      const namespace = nsOf(o);
      const saName = nameOf(o);
      const account = this.accountOf(namespace, saName);
      if (typeof o.automountServiceAccountToken === 'boolean')
        account.automount = o.automountServiceAccountToken;
    }
    for (const o of sorted.nodesAndSecrets)
      if (o.kind === 'Secret') this.listedSecrets.set(nsOf(o), nameOf(o), tokenSecretAccount(o) ?? true);

    // One workload per controller: pods and controllers fold into the top owner the dump names.
    const { workloads, byName } = collectWorkloads(sorted.podsAndControllers);
    // A runtime name is an alias only when it is one workload's and no workload's own name: bare pods
    // named like a Deployment's (`app-7d4b9c8f6d-abcde`, `app-7d4b9c8f6d-fghij`) would otherwise claim one.
    const claims: Claims = { byName, runtimeNames: new ByNamespace<number>() };
    for (const w of workloads) {
      w.runtimeNames = distinct(w.runtimeNames);
      for (const n of w.runtimeNames)
        claims.runtimeNames.set(w.namespace, n, (claims.runtimeNames.get(w.namespace, n) ?? 0) + 1);
    }
    for (const w of workloads) this.workload(w, claims);

    // A known node holds the tokens of the pods scheduled on it (T1528).
    for (const [host, tokens] of this.tokensOnNode) {
      const nodeId = this.out.node('VirtualMachine', this.q(`node/${host}`), {
        cluster: this.cluster,
        k8s_node: true,
      });
      for (const sa of tokens) this.out.edge('ASSUMES', nodeId, sa, NODE_TOKEN_THEFT);
    }

    // Services select workloads (of their namespace); Ingresses route to services.
    const services = this.services(sorted.services, workloads);
    drawIngresses(this, sorted.ingresses, services);
    if (sorted.routes.length) drawRoutes(this, sorted.routes, services);
    if (sorted.buildConfigs.length) this.builds(sorted.buildConfigs, sorted.podsAndControllers);
    if (sorted.gatewayApi.length) drawGatewayApi(this, sorted.gatewayApi, sorted.namespaces, services);
    if (sorted.istio.length) drawIstio(this, sorted.istio, services);

    // RBAC: roles, their escalation, and who is bound to them.
    const roleRules = new Map<string, { id: string; rules: PolicyRule[]; name: string }>();
    // An aggregated ClusterRole's rules are those of the roles it aggregates (a manifest writes none).
    const aggregated = aggregateClusterRoles(sorted.roles);
    // Every role's rules are known before any is judged: a `bind` limited to names is judged by the roles it names.
    this.rulesByRole = rulesByRole(sorted.roles, aggregated);
    for (const o of sorted.roles) this.role(o, roleRules, aggregated?.get(o));
    const boundGroups = new Map<string, string>();
    for (const o of sorted.bindings) this.binding(o, roleRules, boundGroups);
    this.groups(boundGroups, workloads);

    // Nodes and secrets the dump lists on their own (a secret by name and type only).
    for (const o of sorted.nodesAndSecrets) {
      if (o.kind === 'Node')
        this.out.node('VirtualMachine', this.q(`node/${nameOf(o)}`), {
          cluster: this.cluster,
          k8s_node: true,
        });
      else
        this.out.node('Secret', this.q(`${nsOf(o)}/secret/${nameOf(o)}`), {
          cluster: this.cluster,
          namespace: nsOf(o),
          k8s_kind: 'Secret',
          secret_type: typeof o.type === 'string' ? o.type : undefined,
        });
    }
    const ignored = [...sorted.ignored];
    const warnings = ignored.length ? [`k8s dump: kinds not used: ${ignored.sort().join(', ')}`] : [];
    if (sorted.unnamed || this.unnamedSubjects)
      warnings.push(
        `k8s dump: ${sorted.unnamed} object(s) and ${this.unnamedSubjects} binding subject(s) whose name, ` +
          'namespace or role reference is a map or a list skipped (an unrendered Helm or Go template? render ' +
          'it with `helm template` first)',
      );
    if (sorted.operatorReports)
      warnings.push(
        `k8s dump: ${sorted.operatorReports} Trivy Operator report(s) not read here: they are findings, which ` +
          '/ingest/trivy reads (pathgate ingestreal sends them there)',
      );
    if (this.unreadImages.size) {
      const unread = [...this.unreadImages].sort();
      const shown = unread.slice(0, 5).map((i) => JSON.stringify(i));
      if (unread.length > 5) shown.push(`and ${unread.length - 5} more`);
      warnings.push(
        `k8s dump: container images that are not image references, not linked to any scan: ${shown.join(', ')}`,
      );
    }
    for (const { name, unresolved } of sorted.templates)
      warnings.push(
        `k8s dump: OpenShift Template ${JSON.stringify(name)} read as \`oc process\` renders it with its ` +
          "parameters' defaults" +
          (unresolved.length
            ? `; left unrendered (generated, required or undeclared): ${unresolved.join(', ')}`
            : ''),
      );
    return { envelopes: [this.out.build()], warnings, mentioned: [...this.mentioned] };
  }

  /** A name within the cluster: `<cluster>/<name>` when the report names one. */
  q(name: string): string {
    return this.cluster ? `${this.cluster}/${name}` : name;
  }

  private account(namespace: string, saName: string): string {
    return this.accountOf(namespace, saName).id;
  }

  private accountOf(namespace: string, saName: string): Account {
    const known = this.accounts.get(namespace, saName);
    if (known !== undefined) return known;
    const id = this.out.node('ServiceAccount', this.q(`${namespace}/${saName}`), {
      cluster: this.cluster,
      namespace,
    });
    const account: Account = { id, namespace, name: saName, automount: undefined };
    this.accounts.set(namespace, saName, account);
    this.accountList.push(account);
    return account;
  }

  /** Image references, one node per reference as the dump writes it (and the digest a pod runs). */
  private imageNode(raw: string, runningDigest: string | undefined): string | undefined {
    const key = runningDigest ? `${raw}@@${runningDigest}` : raw;
    if (this.imageIds.has(key)) return this.imageIds.get(key);
    const ref = parseImageRef(raw);
    let id: string | undefined;
    if (ref) {
      const digest = ref.digest ?? runningDigest;
      id = this.out.node('Image', ref.canonical, {
        image_ref: ref.raw,
        registry: ref.registry,
        digests: digest ? [digest] : undefined,
        resolve_ref: digest && !ref.digest ? `${ref.raw}@${digest}` : ref.raw,
      });
    } else if (this.unreadImages.size < 1000) this.unreadImages.add(raw);
    this.imageIds.set(key, id);
    return id;
  }

  /** A workload, its images, service accounts, secrets and escapes. */
  private workload(w: Workload, claims: Claims): void {
    const { out, cluster } = this;
    let images: ImageUse[] = NO_IMAGES;
    // Every kind of container; an init or ephemeral container's image is marked `init_container`, as before.
    for (const spec of w.specs)
      for (const field of CONTAINER_FIELDS) images = addImages(images, spec[field], field !== 'containers');
    // Built without undefined values (rather than a literal the builder copies without them): one
    // object per workload instead of two.
    const props: Record<string, unknown> = {};
    if (cluster !== undefined) props.cluster = cluster;
    props.namespace = w.namespace;
    props.kind = lowerKind(w.kind);
    if (images.length) props.image = images[0].raw;
    if (images.length > 1) props.images = images.map((i) => i.raw);
    if (w.nodes.length === 1) props.node_name = w.nodes[0];
    else if (w.nodes.length > 1) props.node_names = [...w.nodes].sort();
    if (w.pods) props.pods = w.pods;
    // Bound on its node's address: exposed as far as the node is, which a dump does not say (no start).
    const hostPorts = hostPortsOf(w.specs);
    if (hostPorts) {
      props.host_port_exposed = true;
      props.host_ports = hostPorts;
    }
    // A Falco alert names a StatefulSet, DaemonSet or Job pod by the pod: it lands on this workload.
    const aliases = aliasesOf(w, claims, cluster);
    if (aliases) props.aliases = aliases;
    const id = out.node('Service', this.q(`${w.namespace}/${w.name}`), props, true);
    w.id = id;

    // Workload runs image: a reference the writer joins to the scan (DECISIONS "Workload runs image").
    for (const image of images) {
      const imageId = this.imageNode(image.raw, w.digests && runningDigest(w.digests, image.containers));
      if (imageId === undefined) continue;
      out.edge('DEPENDS_ON', id, imageId, runsImage(image));
    }

    // Its service accounts, when their token is mounted.
    let unmounted: string[] | undefined;
    for (const spec of w.specs) {
      // An empty name is none (`serviceAccount: ''` in OpenShift's templates): the namespace's default.
      const saName = String(spec.serviceAccountName || spec.serviceAccount || 'default');
      const account = this.accountOf(w.namespace, saName);
      const sa = account.id;
      const automount =
        typeof spec.automountServiceAccountToken === 'boolean'
          ? spec.automountServiceAccountToken
          : (account.automount ?? true);
      if (!automount) {
        (unmounted ??= []).push(saName);
        continue;
      }
      // Its token is a secret it is handed (a projected volume): as easy to read as any other it is given,
      // never harder than stealing it from the node (T1528), which would make routes detour through one.
      out.edge('ASSUMES', id, sa, MOUNTED_TOKEN);
      if (typeof spec.nodeName === 'string' && spec.nodeName) {
        let tokens = this.tokensOnNode.get(spec.nodeName);
        if (!tokens) this.tokensOnNode.set(spec.nodeName, (tokens = new Set()));
        tokens.add(sa);
      }
    }
    if (unmounted) out.stamp(id, { token_not_mounted: [...new Set(unmounted)] });

    // Secrets it is given: names only, never values.
    const secrets = secretsRead(w.specs);
    if (secrets)
      for (const [secret, via] of secrets) {
        const secretId = out.node('Secret', this.q(`${w.namespace}/secret/${secret}`), {
          cluster,
          namespace: w.namespace,
          k8s_kind: 'Secret',
        });
        const listed = this.listedSecrets.get(w.namespace, secret);
        if (!listed) this.mentioned.add(secretId);
        // A service-account token Secret it mounts: it holds that account's token, as if it ran as it.
        else if (listed !== true) out.edge('ASSUMES', id, this.account(w.namespace, listed), TOKEN_SECRET);
        out.edge('HAS_PERMISSION', id, secretId, {
          exploit_probability: WORKLOAD_SECRET_PROBABILITY,
          weight_basis: 'heuristic',
          properties: { access: 'read', via: [...via].sort() },
          handOver: true,
        });
      }

    // Container escape to the node(s) its pods run on (asked first: most pods ask for nothing).
    if (!w.specs.some(asksForHost)) return;
    const escapes =
      w.specs.length === 1 ? podEscapes(w.specs[0]) : mergeEscapes(w.specs.map((spec) => podEscapes(spec)));
    if (!escapes.length) return;
    const hosts = w.nodes.length ? w.nodes : [UNSCHEDULED_NODE];
    for (const host of hosts) {
      const nodeId = out.node('VirtualMachine', this.q(`node/${host}`), {
        cluster,
        k8s_node: true,
        crown_jewel: true,
        crown_jewel_basis: 'k8s:node-root',
        sensitive: true,
        ...(host === UNSCHEDULED_NODE && { unscheduled: true }),
      });
      if (host === UNSCHEDULED_NODE) this.mentioned.add(nodeId);
      out.edge('CAN_ESCALATE_TO', id, nodeId, {
        exploit_probability: escapePrice(escapes.map((e) => e.rule)),
        weight_basis: 'heuristic',
        properties: {
          attack: 'T1611',
          technique: 'Escape to Host',
          rules: escapes.map((e) => e.rule),
          kubehound: escapes.map((e) => e.kubehound),
          reasons: escapes.flatMap((e) => e.evidence.map((x) => `${e.rule}:${x}`)),
        },
        handOver: true,
      });
    }
  }

  /** Services, and the workloads of their namespace they select; returns their ids by namespace and name. */
  private services(objects: K8sObject[], workloads: Workload[]): ByNamespace<string> {
    const { out, cluster } = this;
    const byNamespace = new Map<string, Workload[]>();
    for (const w of workloads) {
      const list = byNamespace.get(w.namespace);
      if (list) list.push(w);
      else byNamespace.set(w.namespace, [w]);
    }
    const services = new ByNamespace<string>();
    for (const o of objects) {
      const namespace = nsOf(o);
      const serviceName = nameOf(o);
      const type = o.spec?.type ?? 'ClusterIP';
      const internal = type === 'LoadBalancer' ? internalLoadBalancer(o.metadata?.annotations) : undefined;
      const ranges = type === 'LoadBalancer' ? sourceRanges(o) : undefined;
      // Source ranges that admit no address of the internet at large (a VPC's, an office's) close it, as a
      // security group open only to them does (cloudnet: only 0.0.0.0/0 or ::/0 opens one).
      const confined = ranges !== undefined && !ranges.some((r) => r === '0.0.0.0/0' || r === '::/0');
      const id = out.node('LoadBalancer', this.q(`${namespace}/service/${serviceName}`), {
        cluster,
        namespace,
        k8s_kind: 'Service',
        service_type: type,
        internal_lb_annotation: internal,
        load_balancer_source_ranges: ranges,
        ...((type === 'LoadBalancer' || type === 'NodePort') &&
          !internal &&
          !confined && {
            internet_exposed: true,
            exposure_basis: `service-type:${type}`,
          }),
      });
      services.set(namespace, serviceName, id);
      const selector = Object.entries((o.spec?.selector ?? {}) as Record<string, string>);
      if (!selector.length) continue;
      // Plain loops: this runs for every workload of the namespace, for every service in it.
      for (const w of byNamespace.get(namespace) ?? []) {
        if (selects(selector, w.labelSets)) out.edge('EXPOSES', id, w.id);
      }
    }
    return services;
  }

  /**
   * OpenShift BuildConfigs: the image a build pushed is BUILT_FROM its git repository (code to cloud, as CI
   * provenance says it), whether it pushes to a registry (`DockerImage`) or to an ImageStreamTag a
   * DeploymentConfig's trigger deployed (the image it last deployed, the one its pods run).
   */
  private builds(buildConfigs: K8sObject[], podsAndControllers: K8sObject[]): void {
    const deployed = new Map<string, string[]>();
    for (const o of podsAndControllers)
      if (o.kind === 'DeploymentConfig')
        for (const [tag, image] of triggeredImageStreamTags(o, nsOf(o)))
          deployed.set(tag, [...(deployed.get(tag) ?? []), image]);
    for (const o of buildConfigs) {
      const output = buildOutputOf(o, nsOf(o), repositoryFromUrl);
      if (!output) continue;
      const images = output.image ? [output.image] : (deployed.get(output.imageStreamTag!) ?? []);
      for (const raw of images) {
        const image = this.imageNode(raw, undefined);
        if (image === undefined) continue;
        const repository = this.out.node('Repository', output.repository, {});
        this.out.edge('BUILT_FROM', image, repository, { properties: { via: `BuildConfig/${nameOf(o)}` } });
      }
    }
  }

  /** Whether a role's rules escalate (bound cluster-wide, or in `scope`'s namespace): CAN_ESCALATE_TO cluster-admin. */
  private escalate(roleId: string, rules: PolicyRule[] | undefined, roleName: string, scope?: string): void {
    const { primitives, named, tokenAccounts } = rbacEscalation(
      rules,
      roleName,
      scope === undefined ? 'cluster' : 'namespace',
      this.roleContext(scope),
    );
    // Tokens of named accounts: the escalation is to them (k8s-rbac-context.ts).
    if (tokenAccounts)
      tokenEscalation(this.out, roleId, tokenAccounts, scope, this.accountList, this.account.bind(this));
    if (!primitives.length) return;
    // Drawn once: later escalations would only merge the same properties into it again.
    if (this.admin === undefined) {
      this.admin = this.out.node('IAM_Role', this.q(CLUSTER_ADMIN), {
        cluster: this.cluster,
        synthetic: true,
        crown_jewel: true,
        crown_jewel_basis: 'synthetic:cluster-admin',
      });
      this.mentioned.add(this.admin);
    }
    // Bound in one namespace: resource-scoped, except kube-system, which holds the cluster's own powers.
    const scoped = named || (scope !== undefined && scope !== 'kube-system');
    this.out.edge('CAN_ESCALATE_TO', roleId, this.admin, {
      resource_scoped: scoped,
      properties: {
        primitives,
        scope: scope === undefined ? 'cluster' : 'namespace',
        namespace: scope,
        resource_names: named || undefined,
      },
      handOver: true,
    });
  }

  private role(
    o: K8sObject,
    roleRules: Map<string, { id: string; rules: PolicyRule[]; name: string }>,
    aggregated: Aggregated | undefined,
  ): void {
    const clusterWide = o.kind === 'ClusterRole';
    const roleName = clusterWide ? `clusterrole/${nameOf(o)}` : `${nsOf(o)}/role/${nameOf(o)}`;
    const rules = aggregated?.rules ?? (rulesOf(o) as PolicyRule[]);
    const id = this.out.node('IAM_Role', this.q(roleName), {
      cluster: this.cluster,
      k8s_kind: o.kind,
      ...(clusterWide ? {} : { namespace: nsOf(o) }),
      ...(aggregated && { aggregated_from: aggregated.from }),
    });
    roleRules.set(roleName, { id, rules, name: nameOf(o) });
    this.escalate(id, rules, nameOf(o), clusterWide ? undefined : nsOf(o));
  }

  private rulesByRole = new Map<string, { rules: PolicyRule[] }>();

  /** The dump's roles, for a `bind` grant limited to names bound in `namespace` (cluster-wide when undefined). */
  private roleContext(namespace: string | undefined): RoleContext {
    return roleContextOf(this.rulesByRole, namespace);
  }

  private binding(
    o: K8sObject,
    roleRules: Map<string, { id: string; rules: PolicyRule[]; name: string }>,
    boundGroups: Map<string, string>,
  ): void {
    const { out, cluster } = this;
    const refKind = roleRefKind(o);
    const toClusterRole = refKind === 'ClusterRole';
    const refName = String(o.roleRef.name);
    let role: string;
    if (o.kind === 'RoleBinding' && toClusterRole) {
      // A ClusterRole bound in one namespace grants its rules there only.
      const bound = roleRules.get(`clusterrole/${refName}`);
      role = out.node('IAM_Role', this.q(`${nsOf(o)}/clusterrole/${refName}`), {
        cluster,
        k8s_kind: 'ClusterRole',
        namespace: nsOf(o),
        bound_in_namespace: true,
      });
      this.escalate(role, bound?.rules, refName, nsOf(o));
    } else {
      const roleName = toClusterRole ? `clusterrole/${refName}` : `${nsOf(o)}/role/${refName}`;
      const known = roleRules.get(roleName);
      role = known?.id ?? out.node('IAM_Role', this.q(roleName), { cluster, k8s_kind: refKind });
      if (!known) {
        this.mentioned.add(role);
        // A binding to a role the dump does not hold: judged by its name alone.
        this.escalate(role, undefined, refName, toClusterRole ? undefined : nsOf(o));
      }
    }
    const binding = { binding: `${o.kind}/${nameOf(o)}` };
    for (const subject of bindingSubjects(o) as K8sObject[]) {
      if (isCollection(subject?.name) || isCollection(subject?.namespace)) {
        this.unnamedSubjects++;
        continue;
      }
      if (typeof subject?.name !== 'string' || !subject.name) continue;
      let who: string | undefined;
      if (subject.kind === 'ServiceAccount')
        who = this.account(String(subject.namespace ?? nsOf(o)), subject.name);
      else if (subject.kind === 'User') {
        // An account's token authenticates as `system:serviceaccount:<ns>:<name>`: that User is the account.
        const sa = serviceAccountOfUser(subject.name);
        who = sa
          ? this.account(sa.namespace, sa.name)
          : out.node('User', this.q(`user/${subject.name}`), { cluster, k8s_user: subject.name });
      } else if (subject.kind === 'Group') {
        who = out.node('User', this.q(`group/${subject.name}`), { cluster, k8s_group: subject.name });
        boundGroups.set(subject.name, who);
      }
      if (who) out.edge('ASSUMES', who, role, { properties: binding });
    }
  }

  /**
   * Group subjects: every service account the dump holds is a member of the groups it belongs to; anyone
   * who reaches the API server (every workload) is `system:unauthenticated` when it sends no token.
   */
  private groups(boundGroups: Map<string, string>, workloads: Workload[]): void {
    for (const [groupName, group] of boundGroups) {
      if (groupName === 'system:unauthenticated') {
        for (const w of workloads) this.member(w.id, group);
        continue;
      }
      const everyAccount = groupName === 'system:authenticated' || groupName === 'system:serviceaccounts';
      // `system:serviceaccounts:<namespace>`: the accounts of that namespace.
      const namespace = groupName.startsWith(SERVICEACCOUNTS_OF)
        ? groupName.slice(SERVICEACCOUNTS_OF.length)
        : undefined;
      for (const sa of this.accountList)
        if (everyAccount || sa.namespace === namespace) this.member(sa.id, group);
    }
  }

  private member(who: string, group: string): void {
    this.out.edge('ASSUMES', who, group, {
      exploit_probability: GROUP_MEMBERSHIP_PROBABILITY,
      weight_basis: 'heuristic',
      properties: { membership: true },
      handOver: true,
    });
  }
}

const SERVICEACCOUNTS_OF = 'system:serviceaccounts:';

/**
 * Edge options shared by every edge of that kind. Their properties are frozen and handed over: one object
 * for the 30,000 ASSUMES edges of issue 14's dump rather than a copy each (the builder keeps them as they
 * are; nothing mutates an envelope's properties in place, and being frozen, nothing can).
 */
const MOUNTED_TOKEN: EdgeOptions = Object.freeze({
  exploit_probability: WORKLOAD_SECRET_PROBABILITY,
  weight_basis: 'heuristic',
  properties: Object.freeze({ via: 'mounted token' }),
  handOver: true,
});
const NODE_TOKEN_THEFT: EdgeOptions = Object.freeze({
  exploit_probability: NODE_TOKEN_THEFT_PROBABILITY,
  weight_basis: 'heuristic',
  properties: Object.freeze({
    attack: 'T1528',
    technique: 'Steal Application Access Token',
    via: 'kubelet pod volumes',
  }),
  handOver: true,
});

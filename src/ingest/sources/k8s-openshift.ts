// OpenShift's own kinds, read by the k8s source beside the upstream ones (a dump of an OpenShift cluster,
// `oc get all -o json`, or an OpenShift template's manifests):
// - a `Route` (route.openshift.io, or `v1` as OpenShift 3 wrote it) is published by the cluster's router, a
//   front door like an Ingress: it routes to the Service `spec.to` names and to its `alternateBackends`
//   (weighted A/B backends; a backend of weight 0 takes no traffic and is left out);
// - a `DeploymentConfig` (apps.openshift.io) is a controller like a Deployment: it owns ReplicationControllers
//   named `<deploymentconfig>-<version>`, which own its pods. A pod whose ReplicationController the dump does
//   not hold is still the DeploymentConfig's: OpenShift annotates it with the name
//   (`openshift.io/deployment-config.name`). An automatic ImageChange trigger sets its containers' images;
// - a `Template` is read as `oc process` renders it with its parameters' defaults;
// - a legacy `authorization.openshift.io` binding names its role with no kind, and its subjects also as
//   `userNames` and `groupNames`; a legacy rule with no `apiGroups` is the core group's.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects as the API returns them
type K8sObject = Record<string, any>;

/** Whether an object is an OpenShift Route. */
export function isOpenShiftRoute(o: K8sObject): boolean {
  return (
    o.kind === 'Route' &&
    typeof o.apiVersion === 'string' &&
    (o.apiVersion.startsWith('route.openshift.io/') || o.apiVersion === 'v1')
  );
}

/** The names of the Services a Route sends traffic to, each once, in the order it names them. */
export function routeServices(route: K8sObject): string[] {
  const backends: unknown[] = [route.spec?.to];
  if (Array.isArray(route.spec?.alternateBackends)) backends.push(...route.spec.alternateBackends);
  const out: string[] = [];
  for (const backend of backends) {
    if (!backend || typeof backend !== 'object') continue;
    const { kind, name, weight } = backend as { kind?: unknown; name?: unknown; weight?: unknown };
    // `Service` is the only kind a Route takes, and the default.
    if ((kind !== undefined && kind !== 'Service') || typeof name !== 'string' || !name) continue;
    if (weight === 0) continue;
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

const DEPLOYMENT_CONFIG_ANNOTATION = 'openshift.io/deployment-config.name';

/**
 * The DeploymentConfig a ReplicationController the dump does not hold belongs to, from the annotation
 * OpenShift sets on the pods (and ReplicationControllers) of a deployment, when the controller's name is the
 * DeploymentConfig's followed by a version (`frontend-3`). Undefined otherwise: a plain ReplicationController
 * is its own workload.
 */
export function deploymentConfigOf(owned: K8sObject, replicationController: string): string | undefined {
  const name: unknown = owned.metadata?.annotations?.[DEPLOYMENT_CONFIG_ANNOTATION];
  if (typeof name !== 'string' || !name) return undefined;
  const version = replicationController.slice(name.length + 1);
  return replicationController.startsWith(`${name}-`) && /^[0-9]+$/.test(version) ? name : undefined;
}

/**
 * The containers of a DeploymentConfig's pod template whose image an automatic ImageChange trigger sets
 * from an ImageStreamTag, each with the image it was last set to (`lastTriggeredImage`), or with the
 * ImageStreamTag it follows when it has not run yet: the template's own `image` is then a placeholder
 * (`origin-ruby-sample`) that names no registry, and is not read as one. The spec is returned as it is when
 * no trigger applies, else a copy with those containers' images replaced.
 */
export function triggeredImages(deploymentConfig: K8sObject, spec: K8sObject): K8sObject {
  if (!Array.isArray(spec.containers)) return spec;
  const images = new Map<string, string>();
  for (const { params, from, last } of imageChangeTriggers(deploymentConfig)) {
    const namespace = typeof from.namespace === 'string' && from.namespace ? `${from.namespace}/` : '';
    // Not an image reference (a space): said as unread, never joined to a registry image of that name.
    const image = last || `ImageStreamTag ${namespace}${from.name}`;
    if (Array.isArray(params.containerNames))
      for (const name of params.containerNames) if (typeof name === 'string') images.set(name, image);
  }
  if (!images.size) return spec;
  return {
    ...spec,
    containers: spec.containers.map((c: K8sObject) =>
      images.has(c?.name) ? { ...c, image: images.get(c.name) } : c,
    ),
  };
}

/** Whether an object is an OpenShift Template (`oc process` renders it into the objects it lists). */
export function isOpenShiftTemplate(o: K8sObject): boolean {
  return (
    o.kind === 'Template' &&
    Array.isArray(o.objects) &&
    typeof o.apiVersion === 'string' &&
    (o.apiVersion.startsWith('template.openshift.io/') || o.apiVersion === 'v1')
  );
}

const PARAMETER = /\$\{\{?([A-Za-z0-9_]+)\}\}?/g;

/**
 * A Template's objects as `oc process` renders them without parameters given: each `${NAME}` (and
 * `${{NAME}}`) replaced by the parameter's default `value`, or by nothing for an optional parameter with
 * none. One `oc process` would generate (a random password) or requires is left as written and listed in
 * `unresolved`: a name holding it is no object of the cluster, an image holding it no image reference.
 */
export function processTemplate(template: K8sObject): { objects: unknown[]; unresolved: string[] } {
  const values = new Map<string, string>();
  for (const p of Array.isArray(template.parameters) ? template.parameters : []) {
    if (typeof p?.name !== 'string') continue;
    if (typeof p.value === 'string') values.set(p.name, p.value);
    // An optional parameter with nothing to generate is rendered empty, as `oc process` does.
    else if (p.required !== true && p.generate === undefined) values.set(p.name, '');
  }
  const unresolved = new Set<string>();
  const render = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') {
      // `${{NAME}}` alone is a non-string value (a number, a boolean) in the rendered object.
      const whole = /^\$\{\{([A-Za-z0-9_]+)\}\}$/.exec(value);
      if (whole && values.has(whole[1])) {
        try {
          return JSON.parse(values.get(whole[1])!) as unknown;
        } catch {
          return values.get(whole[1]);
        }
      }
      return value.replace(PARAMETER, (written, name: string) => {
        const known = values.get(name);
        if (known !== undefined) return known;
        unresolved.add(name);
        return written;
      });
    }
    if (!value || typeof value !== 'object' || depth > 64) return value;
    if (Array.isArray(value)) return value.map((v) => render(v, depth + 1));
    const out: Record<string, unknown> = {};
    // Defined, not assigned: a `__proto__` key of the body stays a key.
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: render(v, depth + 1), enumerable: true, writable: true });
    return out;
  };
  const objects = (template.objects as unknown[]).map((o) => render(o, 0));
  return { objects, unresolved: [...unresolved].sort() };
}

const LEGACY_AUTHORIZATION = 'authorization.openshift.io/';

/**
 * What a binding's `roleRef` names, read as the API that wrote it: OpenShift's legacy
 * `authorization.openshift.io` bindings (still in its templates) name a role by `name` and an optional
 * `namespace`, with no `kind`: no namespace is a ClusterRole, one is the Role of that namespace.
 */
export function roleRefKind(binding: K8sObject): string | undefined {
  const ref = binding.roleRef;
  if (typeof ref?.kind === 'string') return ref.kind;
  if (!String(binding.apiVersion ?? '').startsWith(LEGACY_AUTHORIZATION)) return undefined;
  return typeof ref?.namespace === 'string' && ref.namespace ? 'Role' : 'ClusterRole';
}

/**
 * A binding's subjects: `subjects`, and for a legacy OpenShift binding its `userNames` and `groupNames`
 * too (the API fills both; a manifest may write either).
 */
export function bindingSubjects(binding: K8sObject): unknown[] {
  const subjects: unknown[] = Array.isArray(binding.subjects) ? binding.subjects : [];
  if (!String(binding.apiVersion ?? '').startsWith(LEGACY_AUTHORIZATION)) return subjects;
  const names = (field: string): string[] =>
    Array.isArray(binding[field]) ? binding[field].filter((n: unknown) => typeof n === 'string') : [];
  return [
    ...subjects,
    ...names('userNames').map((name) => ({ kind: 'User', name })),
    ...names('groupNames').map((name) => ({ kind: 'Group', name })),
  ];
}

/**
 * A role's rules as the RBAC matcher reads them: a legacy OpenShift rule that names no `apiGroups` is a
 * rule of the core group (the legacy API's default), where an RBAC rule without them matches nothing.
 */
export function rulesOf(role: K8sObject): unknown[] {
  const rules: unknown[] = Array.isArray(role.rules) ? role.rules : [];
  if (!String(role.apiVersion ?? '').startsWith(LEGACY_AUTHORIZATION)) return rules;
  return rules.map((r) =>
    r && typeof r === 'object' && !Array.isArray((r as K8sObject).apiGroups) ? { ...r, apiGroups: [''] } : r,
  );
}

/** Whether an object is an OpenShift BuildConfig (`oc new-app`'s build from a git repository). */
export function isOpenShiftBuildConfig(o: K8sObject): boolean {
  return (
    o.kind === 'BuildConfig' &&
    typeof o.apiVersion === 'string' &&
    (o.apiVersion.startsWith('build.openshift.io/') || o.apiVersion === 'v1')
  );
}

/** What a BuildConfig builds from and into: its git repository, and the ImageStreamTag or image it pushes. */
export interface BuildOutput {
  repository: string;
  /** `<namespace>/<imagestream>:<tag>` of an ImageStreamTag output */
  imageStreamTag?: string;
  /** an image reference of a DockerImage output */
  image?: string;
}

/**
 * A BuildConfig's repository (its `spec.source.git.uri`, named as `trivy repo` names it) and output, or
 * undefined when it builds from no git repository (a binary or Dockerfile-only build) or pushes nowhere.
 */
export function buildOutputOf(
  buildConfig: K8sObject,
  namespace: string,
  repositoryName: (url: string | undefined) => string | undefined,
): BuildOutput | undefined {
  const uri: unknown = buildConfig.spec?.source?.git?.uri;
  const repository = repositoryName(typeof uri === 'string' ? uri : undefined);
  const to = buildConfig.spec?.output?.to;
  if (!repository || typeof to?.name !== 'string' || !to.name) return undefined;
  if (to.kind === 'DockerImage') return { repository, image: to.name };
  if (to.kind !== 'ImageStreamTag') return undefined;
  return { repository, imageStreamTag: imageStreamTagKey(to, namespace) };
}

/** `<namespace>/<name:tag>` of an ImageStreamTag reference (`from`, `to`), its namespace the object's by default. */
export function imageStreamTagKey(ref: K8sObject, namespace: string): string {
  const name = String(ref.name);
  return `${typeof ref.namespace === 'string' && ref.namespace ? ref.namespace : namespace}/${name.includes(':') ? name : `${name}:latest`}`;
}

/**
 * The images an automatic ImageChange trigger of a DeploymentConfig last deployed, by the ImageStreamTag
 * each follows (`<namespace>/<name:tag>`): what a BuildConfig pushing to that tag built.
 */
export function triggeredImageStreamTags(
  deploymentConfig: K8sObject,
  namespace: string,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const { from, last } of imageChangeTriggers(deploymentConfig))
    if (last) out.set(imageStreamTagKey(from, namespace), last);
  return out;
}

/**
 * A DeploymentConfig's automatic ImageChange triggers that follow an ImageStreamTag: each trigger's
 * parameters, the tag it follows, and the image it last deployed (empty before it has run).
 */
function imageChangeTriggers(
  deploymentConfig: K8sObject,
): { params: K8sObject; from: K8sObject; last: string }[] {
  const triggers: unknown = deploymentConfig.spec?.triggers;
  if (!Array.isArray(triggers)) return [];
  const out: { params: K8sObject; from: K8sObject; last: string }[] = [];
  for (const trigger of triggers) {
    const params = trigger?.imageChangeParams;
    if (trigger?.type !== 'ImageChange' || !params || params.automatic === false) continue;
    const from = params.from;
    if (from?.kind !== 'ImageStreamTag' || typeof from.name !== 'string') continue;
    const last = typeof params.lastTriggeredImage === 'string' ? params.lastTriggeredImage.trim() : '';
    out.push({ params, from, last });
  }
  return out;
}

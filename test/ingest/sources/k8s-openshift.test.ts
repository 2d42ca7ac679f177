// OpenShift's own kinds (src/ingest/sources/k8s-openshift.ts): a Route is a front door like an Ingress, a
// DeploymentConfig one workload with the pods of its ReplicationControllers, an ImageChange trigger's
// placeholder image no registry reference, a Template read as `oc process` renders it, a legacy
// `authorization.openshift.io` binding's roleRef read as that API does; each case with a twin that must not.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readReport } from '../../../src/ingest/recognize.js';
import { createFalcoSource } from '../../../src/ingest/sources/falco.js';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { yamlToList } from '../../../src/ingest/yaml.js';
import { normalize } from '../../helpers/normalize.js';

const k8s = createK8sSource();
const UNSEEN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../fixtures/unseen/k8s/openshift',
);
const unseen = (file: string) => readReport(readFileSync(path.join(UNSEEN, file), 'utf8')).body;
const read = (yaml: string) => normalize(k8s, yamlToList(yaml), { cluster: 'c' });

const SERVICE = `
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {selector: {deploymentconfig: web}}
`;
const route = (spec: string, apiVersion = 'route.openshift.io/v1') => `
apiVersion: ${apiVersion}
kind: Route
metadata: {name: web, namespace: shop}
spec:
  host: shop.example.com
${spec}
`;
const DEPLOYMENT_CONFIG = `
apiVersion: apps.openshift.io/v1
kind: DeploymentConfig
metadata: {name: web, namespace: shop, uid: dc-1}
spec:
  selector: {deploymentconfig: web}
  template:
    metadata: {labels: {deploymentconfig: web}}
    spec:
      containers: [{name: web, image: quay.io/acme/web:1.4}]
`;
const pod = (owner: string, annotations = '') => `
apiVersion: v1
kind: Pod
metadata:
  name: ${owner}-x7k2p
  namespace: shop
  labels: {deploymentconfig: web}
  annotations: {${annotations}}
  ownerReferences: [{apiVersion: v1, kind: ReplicationController, name: ${owner}, controller: true}]
spec:
  nodeName: worker-1
  containers: [{name: web, image: quay.io/acme/web:1.4}]
`;

describe('OpenShift Routes', () => {
  it('are front doors routing to the Service `to` and the alternate backends name', () => {
    const out = read(
      `${SERVICE}---${route(`  to: {kind: Service, name: web, weight: 80}
  alternateBackends: [{kind: Service, name: web-canary, weight: 20}]`)}`,
    );
    expect(out.node('LoadBalancer', 'c/shop/route/web').properties).toMatchObject({
      internet_exposed: true,
      exposure_basis: 'openshift-route',
      k8s_kind: 'Route',
      host: 'shop.example.com',
    });
    expect(out.edges.filter((e) => e.startsWith('ROUTES_TO'))).toEqual([
      'ROUTES_TO c/shop/route/web -> c/shop/service/web',
      'ROUTES_TO c/shop/route/web -> c/shop/service/web-canary',
    ]);
    // Reached through the route: not a second start.
    expect(out.node('LoadBalancer', 'c/shop/service/web').properties?.behind_ingress).toBe(true);
  });

  it('as OpenShift 3 wrote them (`apiVersion: v1`) too', () => {
    const out = read(`${SERVICE}---${route('  to: {kind: Service, name: web}', 'v1')}`);
    expect(out.edges).toContain('ROUTES_TO c/shop/route/web -> c/shop/service/web');
  });

  it('twin: a backend of weight 0 takes no traffic; a `Route` of another API group is no front door', () => {
    const weightless = read(
      `${SERVICE}---${route(`  to: {kind: Service, name: web}
  alternateBackends: [{kind: Service, name: web-old, weight: 0}]`)}`,
    );
    expect(weightless.edges.filter((e) => e.startsWith('ROUTES_TO'))).toEqual([
      'ROUTES_TO c/shop/route/web -> c/shop/service/web',
    ]);
    const other = read(`${SERVICE}---${route('  to: {kind: Service, name: web}', 'gateway.example.com/v1')}`);
    expect(other.names('LoadBalancer')).toEqual(['c/shop/service/web']);
    expect(other.warnings.join()).toContain('kinds not used: Route');
  });
});

describe('OpenShift DeploymentConfigs', () => {
  it('are one workload with the pods of their ReplicationControllers, held by the dump or not', () => {
    const rc = `
apiVersion: v1
kind: ReplicationController
metadata:
  name: web-3
  namespace: shop
  ownerReferences: [{apiVersion: apps.openshift.io/v1, kind: DeploymentConfig, name: web, uid: dc-1, controller: true}]
spec: {template: {spec: {containers: [{name: web, image: quay.io/acme/web:1.4}]}}}
`;
    const held = read(`${DEPLOYMENT_CONFIG}---${rc}---${pod('web-3')}---${SERVICE}`);
    expect(held.names('Service')).toEqual(['c/shop/web']);
    expect(held.node('Service', 'c/shop/web').properties).toMatchObject({
      kind: 'deploymentconfig',
      pods: 1,
    });
    expect(held.edges).toContain('EXPOSES c/shop/service/web -> c/shop/web');

    // The ReplicationController not in the dump: OpenShift's annotation on the pod names its owner.
    const annotated = read(
      `${DEPLOYMENT_CONFIG}---${pod('web-3', 'openshift.io/deployment-config.name: web')}`,
    );
    expect(annotated.names('Service')).toEqual(['c/shop/web']);
  });

  it("runs as the namespace's default account when its template names an empty one", () => {
    // `serviceAccount: ''` as OpenShift's sample templates write it.
    const out = read(DEPLOYMENT_CONFIG.replace('containers:', "serviceAccount: ''\n      containers:"));
    expect(out.edges).toContain('ASSUMES c/shop/web -> c/shop/default');
    expect(out.names('ServiceAccount')).toEqual(['c/shop/default']);
  });

  it('is aliased by its ReplicationControllers, the controller a Falco alert on its pods names', () => {
    const out = read(`${DEPLOYMENT_CONFIG}---${pod('web-3', 'openshift.io/deployment-config.name: web')}`);
    expect(out.node('Service', 'c/shop/web').properties?.aliases).toEqual([
      'c/shop/web-3',
      'c/shop/web-3-x7k2p',
    ]);
    const alert = normalize(
      createFalcoSource(),
      {
        output: 'Shell spawned in a container',
        priority: 'Notice',
        rule: 'Terminal shell in container',
        time: '2026-11-24T04:00:00.000000000Z',
        output_fields: { 'k8s.ns.name': 'shop', 'k8s.pod.name': 'web-3-x7k2p', 'k8s.rc.name': 'web-3' },
      },
      { cluster: 'c' },
    );
    // The alert names `c/shop/web-3`: the graph writer lands it on the DeploymentConfig by that alias.
    expect(alert.names('Service')).toEqual(['c/shop/web-3']);
  });

  it("is aliased by its latest deployment's controller, none before its first", () => {
    const deployed = (version: number) =>
      read(`${DEPLOYMENT_CONFIG}status: {latestVersion: ${version}}\n`).node('Service', 'c/shop/web')
        .properties?.aliases;
    expect(deployed(4)).toEqual(['c/shop/web-4']);
    expect(deployed(0)).toBeUndefined();
  });

  it('twin: a ReplicationController of no DeploymentConfig is its own workload', () => {
    // No annotation, or one naming a DeploymentConfig the controller is not a version of.
    expect(read(pod('web-3')).names('Service')).toEqual(['c/shop/web-3']);
    expect(read(pod('web-3', 'openshift.io/deployment-config.name: api')).names('Service')).toEqual([
      'c/shop/web-3',
    ]);
    expect(read(pod('web-canary', 'openshift.io/deployment-config.name: web')).names('Service')).toEqual([
      'c/shop/web-canary',
    ]);
  });

  it('a container an ImageChange trigger sets runs the image it last set, never the placeholder', () => {
    const triggered = (params: string) =>
      read(`${DEPLOYMENT_CONFIG.replace('image: quay.io/acme/web:1.4', 'image: web')}  triggers:
  - type: ImageChange
    imageChangeParams:
      containerNames: [web]
      from: {kind: ImageStreamTag, name: 'web:latest', namespace: shop}
${params}`);
    const ran = triggered(
      '      automatic: true\n      lastTriggeredImage: image-registry.openshift-image-registry.svc:5000/shop/web@sha256:' +
        'a'.repeat(64),
    );
    // Image nodes are named without their registry (docs/identity.md); the reference keeps it.
    expect(ran.names('Image')).toEqual([`shop/web@sha256:${'a'.repeat(64)}`]);
    expect(ran.node('Image', `shop/web@sha256:${'a'.repeat(64)}`).properties?.registry).toBe(
      'image-registry.openshift-image-registry.svc:5000',
    );
    // Not triggered yet: the ImageStreamTag is said, and `web` is not Docker Hub's `web:latest`.
    const pending = triggered('      automatic: true');
    expect(pending.names('Image')).toEqual([]);
    expect(pending.warnings.join()).toContain('"ImageStreamTag shop/web:latest"');
  });

  it('twin: a manual trigger (`automatic: false`) leaves the template image as written', () => {
    const out = read(`${DEPLOYMENT_CONFIG}  triggers:
  - type: ImageChange
    imageChangeParams:
      automatic: false
      containerNames: [web]
      from: {kind: ImageStreamTag, name: 'web:latest'}
      lastTriggeredImage: quay.io/acme/web:0.9
`);
    expect(out.names('Image')).toEqual(['acme/web:1.4']);
  });
});

describe('OpenShift Templates', () => {
  const template = (parameters: string) => `
apiVersion: template.openshift.io/v1
kind: Template
metadata: {name: shop}
objects:
- apiVersion: apps.openshift.io/v1
  kind: DeploymentConfig
  metadata: {name: '\${NAME}', namespace: shop}
  spec:
    replicas: '\${{REPLICAS}}'
    template:
      metadata: {labels: {app: '\${NAME}'}}
      spec:
        containers: [{name: app, image: 'quay.io/acme/\${NAME}:\${TAG}'}]
- apiVersion: route.openshift.io/v1
  kind: Route
  metadata: {name: '\${NAME}', namespace: shop}
  spec: {host: '\${HOST}', to: {kind: Service, name: '\${NAME}'}}
parameters:
${parameters}
`;

  it('are read as `oc process` renders them: defaults, optional parameters empty', () => {
    const out = read(
      template(`- {name: NAME, value: storefront}
- {name: TAG, value: '2.1'}
- {name: REPLICAS, value: '3'}
- {name: HOST}`),
    );
    expect(out.names('Service')).toEqual(['c/shop/storefront']);
    expect(out.names('Image')).toEqual(['acme/storefront:2.1']);
    expect(out.edges).toContain('ROUTES_TO c/shop/route/storefront -> c/shop/service/storefront');
    expect(out.node('LoadBalancer', 'c/shop/route/storefront').properties?.host).toBeUndefined();
    expect(out.warnings).toContain(
      'k8s dump: OpenShift Template "shop" read as `oc process` renders it with its parameters\' defaults',
    );
  });

  it('twin: a parameter `oc process` would generate or require is not made up, and is said', () => {
    const out = read(
      template(`- {name: NAME, value: storefront}
- {name: TAG, generate: expression, from: '[a-z]{8}'}
- {name: REPLICAS, required: true}`),
    );
    expect(out.names('Image')).toEqual([]);
    expect(out.warnings.join('\n')).toContain(
      // HOST is declared by no parameter: left as written, as `oc process` leaves it.
      'left unrendered (generated, required or undeclared): HOST, REPLICAS, TAG',
    );
  });
});

describe('legacy OpenShift authorization (authorization.openshift.io)', () => {
  const binding = (roleRef: string, apiVersion = 'authorization.openshift.io/v1', extra = '') => `
apiVersion: ${apiVersion}
kind: RoleBinding
metadata: {name: ci-edit, namespace: ci}
roleRef: ${roleRef}
subjects: [{kind: ServiceAccount, name: jenkins}]
${extra}
`;

  it('a roleRef with no kind and no namespace is a ClusterRole; with a namespace, that Role', () => {
    expect(read(binding('{name: edit}')).edges).toContain('ASSUMES c/ci/jenkins -> c/ci/clusterrole/edit');
    expect(read(binding('{name: deployer, namespace: ci}')).edges).toContain(
      'ASSUMES c/ci/jenkins -> c/ci/role/deployer',
    );
  });

  it('reads `userNames` and `groupNames` as subjects', () => {
    const out = read(binding('{name: edit}', undefined, 'userNames: [alice]\ngroupNames: [developers]'));
    expect(out.edges).toContain('ASSUMES c/user/alice -> c/ci/clusterrole/edit');
    expect(out.edges).toContain('ASSUMES c/group/developers -> c/ci/clusterrole/edit');
  });

  it('a legacy rule naming no API group is the core group', () => {
    const role = (apiVersion: string) => `
apiVersion: ${apiVersion}
kind: Role
metadata: {name: pods, namespace: ci}
rules: [{resources: [pods], verbs: [create]}]
`;
    expect(read(role('authorization.openshift.io/v1')).edges).toContain(
      'CAN_ESCALATE_TO c/ci/role/pods -> c/cluster-admin',
    );
    // Twin: an RBAC rule without apiGroups matches nothing, as the API server reads it.
    expect(read(role('rbac.authorization.k8s.io/v1')).edges).toEqual([]);
  });

  it('twin: an RBAC binding keeps its own roleRef kind, and names no userNames', () => {
    const out = read(
      binding('{kind: Role, name: edit}', 'rbac.authorization.k8s.io/v1', 'userNames: [alice]'),
    );
    expect(out.edges.filter((e) => e.startsWith('ASSUMES'))).toEqual([
      'ASSUMES c/ci/jenkins -> c/ci/role/edit',
    ]);
  });
});

describe('OpenShift BuildConfigs', () => {
  /** OpenShift's Django template as `oc get` shows it once deployed: the trigger has run. */
  const deployedDjango = (lastTriggeredImage?: string) => {
    const template = structuredClone(unseen('library-django-psql-example.json')) as Record<string, any>;
    for (const o of template.objects)
      if (o.kind === 'DeploymentConfig' && o.metadata.name === '${NAME}' && lastTriggeredImage)
        o.spec.triggers[0].imageChangeParams.lastTriggeredImage = lastTriggeredImage;
    return template;
  };
  const IMAGE = `image-registry.openshift-image-registry.svc:5000/default/django-psql-example@sha256:${'b'.repeat(64)}`;

  it('the image a build pushed to the tag a DeploymentConfig deployed is BUILT_FROM its git repository', () => {
    const out = normalize(k8s, deployedDjango(IMAGE), { cluster: 'c' });
    expect(
      out.edgeProps(
        'BUILT_FROM',
        `default/django-psql-example@sha256:${'b'.repeat(64)}`,
        'github.com/sclorg/django-ex',
      ),
    ).toEqual({
      via: 'BuildConfig/django-psql-example',
    });
    expect(out.edges).toContain(
      `DEPENDS_ON c/default/django-psql-example -> default/django-psql-example@sha256:${'b'.repeat(64)}`,
    );
  });

  it('twin: before the trigger has run there is no image to say it of; a DockerImage output is one', () => {
    expect(
      normalize(k8s, deployedDjango(), { cluster: 'c' }).edges.filter((e) => e.startsWith('BUILT_FROM')),
    ).toEqual([]);
    const pushed = read(`
apiVersion: build.openshift.io/v1
kind: BuildConfig
metadata: {name: api, namespace: shop}
spec:
  source: {git: {uri: 'git@github.com:acme/api.git'}}
  output: {to: {kind: DockerImage, name: 'quay.io/acme/api:2.0'}}
`);
    expect(pushed.edges).toEqual(['BUILT_FROM acme/api:2.0 -> github.com/acme/api']);
    // A binary build names no repository: nothing is said of where its image comes from.
    expect(
      read(`
apiVersion: build.openshift.io/v1
kind: BuildConfig
metadata: {name: api, namespace: shop}
spec:
  source: {type: Binary}
  output: {to: {kind: DockerImage, name: 'quay.io/acme/api:2.0'}}
`).edges,
    ).toEqual([]);
  });
});

describe('real OpenShift files', () => {
  it("OpenShift's Jenkins template: the route to Jenkins, its account's `edit` in the namespace escalating", () => {
    const out = normalize(k8s, unseen('library-jenkins-ephemeral.json'), { cluster: 'c' });
    expect(out.edges).toEqual(
      expect.arrayContaining([
        'ROUTES_TO c/default/route/jenkins -> c/default/service/jenkins',
        'EXPOSES c/default/service/jenkins -> c/default/jenkins',
        'ASSUMES c/default/jenkins -> c/default/jenkins',
        'ASSUMES c/default/jenkins -> c/default/clusterrole/edit',
        'CAN_ESCALATE_TO c/default/clusterrole/edit -> c/cluster-admin',
      ]),
    );
    // The Jenkins image follows an ImageStreamTag of the cluster: said, not joined to a registry image.
    expect(out.names('Image')).toEqual([]);
    expect(out.warnings.join()).toContain('"ImageStreamTag openshift/jenkins:2"');
  });

  it("OpenShift's Django template: the route, and no name or host made of an unrendered parameter", () => {
    const out = normalize(k8s, unseen('library-django-psql-example.json'), { cluster: 'c' });
    expect(out.edges).toContain(
      'ROUTES_TO c/default/route/django-psql-example -> c/default/service/django-psql-example',
    );
    expect(JSON.stringify(out.nodes)).not.toContain('${');
    expect(out.warnings.join()).toContain('DATABASE_PASSWORD');
  });

  it("kube-linter's docker.sock check: the Deployment and the DeploymentConfig of each name escape alike", () => {
    const out = normalize(k8s, unseen('kube-linter-docker-sock.yml'), { cluster: 'c' });
    expect(out.names('Service').sort()).toEqual(['c/default/app', 'c/default/dont-fire']);
    expect(out.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO'))).toEqual([
      'CAN_ESCALATE_TO c/default/app -> c/node/unscheduled',
    ]);
    expect(out.warnings.join()).not.toContain('DeploymentConfig');
  });

  it("kube-linter's sensitive host mounts: /etc mounted from the host escapes from a DeploymentConfig too", () => {
    const out = normalize(k8s, unseen('kube-linter-sensitive-host-mounts.yml'), { cluster: 'c' });
    expect(out.edges.filter((e) => e.startsWith('CAN_ESCALATE_TO')).sort()).toEqual([
      'CAN_ESCALATE_TO c/default/app1 -> c/node/unscheduled',
      'CAN_ESCALATE_TO c/default/app2 -> c/node/unscheduled',
    ]);
  });
});

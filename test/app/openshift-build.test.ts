// OpenShift code to cloud, end to end through the real ingest: OpenShift's own Django template as deployed
// (its BuildConfig builds github.com/sclorg/django-ex into the ImageStreamTag its DeploymentConfig's trigger
// deployed) and a real `trivy repo` scan of that repository: the hop into the Django workload is priced from
// the repository's CVEs through the image it built (no hand-drawn BUILT_FROM); before the trigger has run,
// nothing is inherited.
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { makeService, type TestService } from '../helpers/service.js';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

type Json = Record<string, any>;
const unseen = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/unseen/${file}`, import.meta.url), 'utf8')) as Json;
const IMAGE = `image-registry.openshift-image-registry.svc:5000/default/django-psql-example@sha256:${'c'.repeat(64)}`;

/**
 * The template as `oc get` shows it once deployed (the trigger has set `lastTriggeredImage`), with the
 * project's default account made its admin (`oc policy add-role-to-user admin -z default`), so that a route
 * leads somewhere worth reaching.
 */
function django(deployed: boolean): Json {
  const template = unseen('k8s/openshift/library-django-psql-example.json');
  for (const o of template.objects)
    if (o.kind === 'DeploymentConfig' && o.metadata.name === '${NAME}' && deployed)
      o.spec.triggers[0].imageChangeParams.lastTriggeredImage = IMAGE;
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'admin-0', namespace: 'default' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }],
  };
  return { apiVersion: 'v1', kind: 'List', items: [template, binding] };
}

for (const deployed of [true, false])
  it(
    deployed
      ? 'prices the hop into Django from the repository it was built from'
      : 'twin: not deployed, nothing inherited',
    async () => {
      service = await makeService();
      for (const [body, source, query] of [
        [django(deployed), 'k8s', 'cluster=ocp'],
        [unseen('trivy/pip.json'), 'trivy', 'repo=github.com/sclorg/django-ex'],
      ] as const) {
        const response = await service.ingest(body, { source, query });
        expect(response.status, JSON.stringify(response.json)).toBe(202);
      }
      await service.settle();
      const { attackPaths } = await service.graphql(
        '{ attackPaths { nodes { name label } steps { weightBasis } } }',
      );
      const route = (
        attackPaths as { nodes: { name: string; label: string }[]; steps: { weightBasis: string }[] }[]
      ).find((p) => p.nodes[0].name === 'ocp/default/route/django-psql-example');
      expect(route?.nodes.map((n) => `${n.label} ${n.name}`).slice(0, 3)).toEqual([
        'LoadBalancer ocp/default/route/django-psql-example',
        'LoadBalancer ocp/default/service/django-psql-example',
        'Service ocp/default/django-psql-example',
      ]);
      // The hop into Django: priced from the repository's CVEs through the image built from it, or not at all.
      expect(route!.steps[1].weightBasis).toBe(deployed ? 'cvss' : 'heuristic');
    },
  );

// OpenShift end to end, through the real ingest listener and from real files: OpenShift's own Jenkins
// Template (a Route, the Service, a DeploymentConfig following an ImageStreamTag, its account bound to `edit`)
// and a Trivy scan of the image the trigger last deployed give the route from the Route to the cluster's
// admin, its hop into Jenkins priced from the image's CVE; before the trigger has run, the placeholder image
// joins no scan (no hand-drawn DEPENDS_ON: the join is the identity rules').
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readReal } from '../helpers/normalize.js';
import { makeService, type TestService } from '../helpers/service.js';

let service: TestService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

type Json = Record<string, any>;

const TEMPLATE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/unseen/k8s/openshift/library-jenkins-ephemeral.json',
);
/** The image the real Trivy golden scanned, with a critical CVE. */
const SCANNED = 'ghcr.io/aquasecurity/trivy-test-images:debian-buster';
const SCAN = 'trivy/debian-buster-archive.json';

/**
 * The Template as `oc get` shows it once deployed: its ImageChange trigger has set `lastTriggeredImage`, and
 * its first deployment made the ReplicationController `jenkins-1`.
 */
function jenkins(deployed: boolean): Json {
  const template = JSON.parse(readFileSync(TEMPLATE, 'utf8')) as Json;
  const dc = template.objects.find((o: Json) => o.kind === 'DeploymentConfig');
  const trigger = dc.spec.triggers.find((t: Json) => t.type === 'ImageChange');
  if (deployed) {
    trigger.imageChangeParams.lastTriggeredImage = SCANNED;
    dc.status = { latestVersion: 1 };
  }
  return template;
}

async function routes(s: TestService) {
  await s.settle();
  const { attackPaths } = await s.graphql(
    '{ attackPaths { nodes { name label } steps { from to weightBasis } } }',
  );
  return attackPaths as { nodes: { name: string; label: string }[]; steps: { weightBasis: string }[] }[];
}

describe('an OpenShift Template and a Trivy scan of the image its trigger deployed', () => {
  for (const deployed of [true, false])
    it(
      deployed
        ? 'give the route priced from the CVE'
        : 'twin: before the trigger ran, no scan prices the hop',
      async () => {
        service = await makeService();
        for (const [body, source, query] of [
          [jenkins(deployed), 'k8s', 'cluster=ocp'],
          [readReal(SCAN), 'trivy', ''],
        ] as const) {
          const response = await service.ingest(body, { source, query });
          expect(response.status, JSON.stringify(response.json)).toBe(202);
        }
        const live = await routes(service);
        expect(live).toHaveLength(1);
        const [route] = live;
        expect(route.nodes.map((n) => `${n.label} ${n.name}`)).toEqual([
          'LoadBalancer ocp/default/route/jenkins',
          'LoadBalancer ocp/default/service/jenkins',
          'Service ocp/default/jenkins',
          'ServiceAccount ocp/default/jenkins',
          'IAM_Role ocp/default/clusterrole/edit',
          'IAM_Role ocp/cluster-admin',
        ]);
        // The hop into Jenkins: priced from the deployed image's CVEs, or by the heuristic when no scan joins.
        expect(route.steps[1].weightBasis).toBe(deployed ? 'cvss' : 'heuristic');
      },
    );
});

describe('a Falco alert on a DeploymentConfig pod', () => {
  it('lands on the DeploymentConfig, by the ReplicationController it names', async () => {
    service = await makeService();
    const response = await service.ingest(jenkins(true), { source: 'k8s', query: 'cluster=ocp' });
    expect(response.status, JSON.stringify(response.json)).toBe(202);
    const alert = await service.ingest(
      [
        {
          output: 'Shell spawned in a container',
          priority: 'Notice',
          rule: 'Terminal shell in container',
          time: '2026-11-24T04:00:00.000000000Z',
          output_fields: {
            'k8s.ns.name': 'default',
            'k8s.pod.name': 'jenkins-1-x7k2p',
            'k8s.rc.name': 'jenkins-1',
          },
        },
      ],
      { source: 'falco', query: 'cluster=ocp' },
    );
    expect(alert.status, JSON.stringify(alert.json)).toBe(202);
    await service.settle();
    const workloads: Json[] = [];
    service.engine.tenant('default')!.graph.forEachNode((_id, a) => {
      if (a.label === 'Service') workloads.push({ name: a.name, ...a.props });
    });
    // No second workload for the ReplicationController: the alert is Jenkins'.
    expect(workloads.map((w) => w.name)).toEqual(['ocp/default/jenkins']);
    expect(workloads[0].runtime_observed).toBe(true);
  });
});

// The front doors of a dump: Ingresses, OpenShift Routes, Gateway API and Istio Gateways, each exposed (a
// start) and ROUTES_TO the Services it sends to. The Services are reached through them, never a second start
// (DECISIONS "One start per exposure").
import type { EnvelopeBuilder } from '../envelope-builder.js';
import { admits, backendsOf, parentRefsOf } from '../k8s-gateway-api.js';
import { destinationsOf, gatewaysOf } from '../k8s-istio.js';
import { routeServices } from '../k8s-openshift.js';
import { ByNamespace } from './by-namespace.js';
import { list, nameOf, nsOf, type K8sObject } from './dump.js';
import { internalLoadBalancer } from './service-exposure.js';

/** What the front doors draw with: the report's builder, its cluster, and the nodes only mentioned. */
export interface DrawContext {
  readonly out: EnvelopeBuilder;
  readonly cluster: string | undefined;
  readonly mentioned: Set<string>;
  /** A name within the cluster: `<cluster>/<name>` when the report names one. */
  q(name: string): string;
}

export function drawIngresses(m: DrawContext, objects: K8sObject[], services: ByNamespace<string>): void {
  const { out, cluster } = m;
  for (const o of objects) {
    const namespace = nsOf(o);
    const id = out.node('LoadBalancer', m.q(`${namespace}/ingress/${nameOf(o)}`), {
      cluster,
      namespace,
      k8s_kind: 'Ingress',
      internet_exposed: true,
      exposure_basis: 'ingress',
    });
    const backends = [
      o.spec?.defaultBackend,
      o.spec?.backend,
      ...list(o.spec?.rules).flatMap((r: K8sObject) =>
        list(r?.http?.paths).map((p: K8sObject) => p?.backend),
      ),
    ];
    for (const backend of backends) {
      const service = backend?.service?.name ?? backend?.serviceName;
      if (typeof service === 'string') routeTo(m, id, namespace, service, services);
    }
  }
}

/**
 * A front door's ROUTES_TO a Service of the cluster: the dump's, or one drawn as only mentioned for its own
 * dump to describe. The Service is reached through the front door, not a second start (DECISIONS "One
 * start per exposure").
 */
export function routeTo(
  m: DrawContext,
  frontDoor: string,
  namespace: string,
  service: string,
  services: ByNamespace<string>,
  route?: string,
): void {
  const { out } = m;
  let target = services.get(namespace, service);
  if (!target) {
    target = out.node('LoadBalancer', m.q(`${namespace}/service/${service}`), {
      cluster: m.cluster,
      namespace,
      k8s_kind: 'Service',
    });
    m.mentioned.add(target);
  }
  out.stamp(target, { behind_ingress: true });
  out.edge('ROUTES_TO', frontDoor, target, route === undefined ? undefined : { properties: { route } });
}

/** OpenShift Routes: published by the cluster's router like an Ingress (k8s-openshift.ts). */
export function drawRoutes(m: DrawContext, objects: K8sObject[], services: ByNamespace<string>): void {
  for (const o of objects) {
    const namespace = nsOf(o);
    const id = m.out.node('LoadBalancer', m.q(`${namespace}/route/${nameOf(o)}`), {
      cluster: m.cluster,
      namespace,
      k8s_kind: 'Route',
      k8s_api: 'route.openshift.io',
      host: typeof o.spec?.host === 'string' && o.spec.host ? o.spec.host : undefined,
      internet_exposed: true,
      exposure_basis: 'openshift-route',
    });
    for (const service of routeServices(o)) routeTo(m, id, namespace, service, services);
  }
}

/**
 * Gateway API front doors: a Gateway is exposed like an Ingress and ROUTES_TO the Services of the routes
 * it admits (k8s-gateway-api.ts). A Gateway a route names that the dump does not hold is drawn without
 * exposure, for its own dump to describe.
 */
export function drawGatewayApi(
  m: DrawContext,
  objects: K8sObject[],
  namespaces: K8sObject[],
  services: ByNamespace<string>,
): void {
  const { out, cluster } = m;
  const gateways = new ByNamespace<{ object: K8sObject; id: string }>();
  const grants = new Map<string, K8sObject[]>();
  for (const o of objects) {
    const namespace = nsOf(o);
    if (o.kind === 'ReferenceGrant') {
      const list = grants.get(namespace);
      if (list) list.push(o);
      else grants.set(namespace, [o]);
      continue;
    }
    if (o.kind !== 'Gateway') continue;
    const internal = internalLoadBalancer(o.spec?.infrastructure?.annotations);
    const id = out.node('LoadBalancer', m.q(`${namespace}/gateway/${nameOf(o)}`), {
      cluster,
      namespace,
      k8s_kind: 'Gateway',
      gateway_class: typeof o.spec?.gatewayClassName === 'string' ? o.spec.gatewayClassName : undefined,
      internal_lb_annotation: internal,
      ...(!internal && { internet_exposed: true, exposure_basis: 'gateway' }),
    });
    gateways.set(namespace, nameOf(o), { object: o, id });
  }
  const namespaceLabels = new Map<string, unknown>(
    namespaces.map((n) => [nameOf(n), n.metadata?.labels ?? {}]),
  );
  for (const o of objects) {
    if (o.kind === 'Gateway' || o.kind === 'ReferenceGrant') continue;
    const namespace = nsOf(o);
    const backends = backendsOf(o, namespace, grants);
    if (!backends.length) continue;
    for (const parent of parentRefsOf(o, namespace)) {
      const gateway = gateways.get(parent.namespace, parent.name);
      let gatewayId = gateway?.id;
      if (gateway) {
        const route = { kind: String(o.kind), namespace, sectionName: parent.sectionName };
        if (!admits(gateway.object, parent.namespace, route, namespaceLabels)) continue;
      } else {
        gatewayId = out.node('LoadBalancer', m.q(`${parent.namespace}/gateway/${parent.name}`), {
          cluster,
          namespace: parent.namespace,
          k8s_kind: 'Gateway',
        });
        m.mentioned.add(gatewayId);
      }
      for (const backend of backends)
        routeTo(m, gatewayId!, backend.namespace, backend.name, services, `${o.kind}/${nameOf(o)}`);
    }
  }
}

/**
 * Istio's ingress: a Gateway is exposed like an Ingress and ROUTES_TO the Services of the VirtualServices
 * bound to it (k8s-istio.ts). A Gateway a VirtualService names that the dump does not hold is drawn
 * without exposure, for its own dump to describe.
 */
export function drawIstio(m: DrawContext, objects: K8sObject[], services: ByNamespace<string>): void {
  const { out, cluster } = m;
  const gateways = new ByNamespace<string>();
  for (const o of objects) {
    if (o.kind !== 'Gateway') continue;
    const namespace = nsOf(o);
    gateways.set(
      namespace,
      nameOf(o),
      out.node('LoadBalancer', m.q(`${namespace}/istio-gateway/${nameOf(o)}`), {
        cluster,
        namespace,
        k8s_kind: 'Gateway',
        k8s_api: 'networking.istio.io',
        internet_exposed: true,
        exposure_basis: 'istio-gateway',
      }),
    );
  }
  for (const o of objects) {
    if (o.kind !== 'VirtualService') continue;
    const namespace = nsOf(o);
    const destinations = destinationsOf(o, namespace);
    if (!destinations.length) continue;
    for (const gateway of gatewaysOf(o, namespace)) {
      let gatewayId = gateways.get(gateway.namespace, gateway.name);
      if (gatewayId === undefined) {
        gatewayId = out.node('LoadBalancer', m.q(`${gateway.namespace}/istio-gateway/${gateway.name}`), {
          cluster,
          namespace: gateway.namespace,
          k8s_kind: 'Gateway',
          k8s_api: 'networking.istio.io',
        });
        m.mentioned.add(gatewayId);
      }
      for (const destination of destinations)
        routeTo(
          m,
          gatewayId,
          destination.namespace,
          destination.name,
          services,
          `VirtualService/${nameOf(o)}`,
        );
    }
  }
}

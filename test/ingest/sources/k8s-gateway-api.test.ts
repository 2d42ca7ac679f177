// Gateway API front doors (src/ingest/sources/k8s-gateway-api.ts): a Gateway is exposed like an Ingress and
// ROUTES_TO the Services of the routes it admits; each case with a twin that must not route.
import { describe, expect, it } from 'vitest';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { yamlToList } from '../../../src/ingest/yaml.js';
import { normalize } from '../../helpers/normalize.js';

const k8s = createK8sSource();
const run = (yaml: string) => normalize(k8s, yamlToList(yaml), { cluster: 'c' });

const gateway = (listener: string, extra = '') => `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: infra}
spec:
  gatewayClassName: public
  ${extra}
  listeners:
  - ${listener}
`;
const route = (
  namespace: string,
  backend: string,
  kind = 'HTTPRoute',
  parent = '{name: edge, namespace: infra}',
) => `
apiVersion: gateway.networking.k8s.io/v1
kind: ${kind}
metadata: {name: web, namespace: ${namespace}}
spec:
  parentRefs: [${parent}]
  rules:
  - backendRefs: [${backend}]
`;
const HTTP_ALL = '{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}';
const routed = (yaml: string) =>
  run(yaml).edges.filter((e) => e.startsWith('ROUTES_TO c/infra/gateway/edge'));

describe('Gateway API', () => {
  it('a Gateway is an internet front door routing to the Services of the routes it admits', () => {
    const out = run(`${gateway(HTTP_ALL)}---${route('shop', '{name: web, port: 80}')}`);
    expect(out.node('LoadBalancer', 'c/infra/gateway/edge').properties).toMatchObject({
      k8s_kind: 'Gateway',
      internet_exposed: true,
      exposure_basis: 'gateway',
    });
    expect(out.edgeProps('ROUTES_TO', 'c/infra/gateway/edge', 'c/shop/service/web')).toEqual({
      route: 'HTTPRoute/web',
    });
  });

  it('twin: a listener admitting its own namespace only does not take a route from another', () => {
    const same = '{name: http, protocol: HTTP, port: 80}';
    expect(routed(`${gateway(same)}---${route('shop', '{name: web}')}`)).toEqual([]);
    expect(routed(`${gateway(same)}---${route('infra', '{name: web}')}`)).toEqual([
      'ROUTES_TO c/infra/gateway/edge -> c/infra/service/web',
    ]);
  });

  it("twin: a Selector listener takes only the namespaces it selects, by the Namespace's labels or its name", () => {
    const selector =
      '{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {expose: "yes"}}}}}';
    const namespace = (labels: string) =>
      `\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {${labels}}}\n`;
    expect(
      routed(`${gateway(selector)}---${namespace('expose: "yes"')}---${route('shop', '{name: web}')}`),
    ).toHaveLength(1);
    expect(
      routed(`${gateway(selector)}---${namespace('expose: "no"')}---${route('shop', '{name: web}')}`),
    ).toEqual([]);
    const byName =
      '{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: Selector, selector: {matchLabels: {kubernetes.io/metadata.name: shop}}}}}';
    expect(routed(`${gateway(byName)}---${route('shop', '{name: web}')}`)).toHaveLength(1);
    expect(routed(`${gateway(byName)}---${route('blog', '{name: web}')}`)).toEqual([]);
  });

  it('twin: a listener takes only the route kinds its protocol carries, on the section a route names', () => {
    const tcp = '{name: db, protocol: TCP, port: 5432, allowedRoutes: {namespaces: {from: All}}}';
    expect(routed(`${gateway(tcp)}---${route('shop', '{name: db}')}`)).toEqual([]);
    expect(routed(`${gateway(tcp)}---${route('shop', '{name: db}', 'TCPRoute')}`)).toHaveLength(1);
    const section = '{name: edge, namespace: infra, sectionName: other}';
    expect(routed(`${gateway(HTTP_ALL)}---${route('shop', '{name: web}', 'HTTPRoute', section)}`)).toEqual(
      [],
    );
  });

  it('twin: a Service in another namespace is reached only when a ReferenceGrant there admits the route', () => {
    const crossing = `${gateway(HTTP_ALL)}---${route('shop', '{name: db, namespace: data}')}`;
    expect(routed(crossing)).toEqual([]);
    const grant = `
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: shop-to-db, namespace: data}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]
  to: [{group: "", kind: Service}]
`;
    expect(routed(`${crossing}---${grant}`)).toEqual(['ROUTES_TO c/infra/gateway/edge -> c/data/service/db']);
    expect(routed(`${crossing}---${grant.replace('namespace: shop}', 'namespace: blog}')}`)).toEqual([]);
  });

  it("twin: an internal Gateway (infrastructure annotation) is not a start; Istio's own Gateway is not one", () => {
    const internal = run(
      gateway(HTTP_ALL, 'infrastructure: {annotations: {networking.gke.io/load-balancer-type: Internal}}'),
    );
    expect(
      internal.node('LoadBalancer', 'c/infra/gateway/edge').properties?.internet_exposed,
    ).toBeUndefined();
    // Istio's own Gateway is another object (k8s-istio.ts): never read as a Gateway API one.
    const istio = run(`
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: edge, namespace: infra}
spec: {selector: {istio: ingressgateway}}
`);
    expect(istio.names('LoadBalancer')).toEqual(['c/infra/istio-gateway/edge']);
  });

  it('twin: backends of other kinds (ServiceImport) and parents of other kinds (a mesh Service) draw nothing', () => {
    expect(
      routed(
        `${gateway(HTTP_ALL)}---${route('shop', '{group: multicluster.x-k8s.io, kind: ServiceImport, name: web}')}`,
      ),
    ).toEqual([]);
    const mesh = run(route('shop', '{name: web}', 'HTTPRoute', '{group: "", kind: Service, name: api}'));
    expect(mesh.edges).toEqual([]);
  });
});

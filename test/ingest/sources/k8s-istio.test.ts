// Istio's ingress (src/ingest/sources/k8s-istio.ts): an Istio Gateway is a front door, a VirtualService
// bound to it ROUTES_TO the Services its routes name; each case with a twin that must not route.
import { describe, expect, it } from 'vitest';
import { createK8sSource } from '../../../src/ingest/sources/k8s.js';
import { yamlToList } from '../../../src/ingest/yaml.js';
import { normalize } from '../../helpers/normalize.js';

const k8s = createK8sSource();
const GATEWAY = `
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: public, namespace: edge}
spec:
  selector: {istio: ingressgateway}
  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: ["*"]}]
`;
const virtualService = (gateways: string, host: string, extra = '') => `
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: shop, namespace: shop}
spec:
  hosts: ["shop.example.com"]
  ${gateways}
  http:
  - route: [{destination: {host: ${host}}}]
    ${extra}
`;
const routes = (yaml: string) =>
  normalize(k8s, yamlToList(yaml), { cluster: 'c' }).edges.filter((e) => e.startsWith('ROUTES_TO '));

describe('Istio ingress', () => {
  it('a VirtualService bound to a Gateway of another namespace routes to the Service its short host names', () => {
    const out = normalize(
      k8s,
      yamlToList(`${GATEWAY}---${virtualService('gateways: [edge/public]', 'web')}`),
      {
        cluster: 'c',
      },
    );
    expect(out.node('LoadBalancer', 'c/edge/istio-gateway/public').properties).toMatchObject({
      internet_exposed: true,
      exposure_basis: 'istio-gateway',
    });
    expect(out.edgeProps('ROUTES_TO', 'c/edge/istio-gateway/public', 'c/shop/service/web')).toEqual({
      route: 'VirtualService/shop',
    });
  });

  it('twin: a VirtualService naming no gateway, or only `mesh`, is routing inside the mesh: no front door', () => {
    expect(routes(`${GATEWAY}---${virtualService('', 'web')}`)).toEqual([]);
    expect(routes(`${GATEWAY}---${virtualService('gateways: [mesh]', 'web')}`)).toEqual([]);
    // A bare gateway name is the VirtualService's own namespace: `public` there is another, unknown one.
    expect(routes(`${GATEWAY}---${virtualService('gateways: [public]', 'web')}`)).toEqual([
      'ROUTES_TO c/shop/istio-gateway/public -> c/shop/service/web',
    ]);
  });

  it('reads fully qualified hosts and mirrors; twin: a host outside the cluster or not qualified by Istio', () => {
    expect(
      routes(`${GATEWAY}---${virtualService('gateways: [edge/public]', 'api.prod.svc.cluster.local')}`),
    ).toEqual(['ROUTES_TO c/edge/istio-gateway/public -> c/prod/service/api']);
    expect(
      routes(`${GATEWAY}---${virtualService('gateways: [edge/public]', 'web', 'mirror: {host: shadow}')}`),
    ).toHaveLength(2);
    for (const host of ['api.example.com', 'api.prod', '"*.example.com"'])
      expect(routes(`${GATEWAY}---${virtualService('gateways: [edge/public]', host)}`), host).toEqual([]);
  });

  it('twin: a Gateway only named by a VirtualService is drawn without exposure, for its own dump to say', () => {
    const out = normalize(k8s, yamlToList(virtualService('gateways: [edge/public]', 'web')), {
      cluster: 'c',
    });
    expect(
      out.node('LoadBalancer', 'c/edge/istio-gateway/public').properties?.internet_exposed,
    ).toBeUndefined();
  });
});

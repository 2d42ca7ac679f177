// nodes/proxy reaches the kubelet API of every node, which runs commands in any pod there (its exec and run
// endpoints): get is enough over a WebSocket upgrade, create over plain HTTP.
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const REQUESTS = requests('', ['nodes/proxy'], ['get', 'create']);

export const nodesProxy: RbacPrimitive = {
  name: 'nodes-proxy',
  grants: (rules, _role, scope) => grantOf(rules, REQUESTS, scope),
};

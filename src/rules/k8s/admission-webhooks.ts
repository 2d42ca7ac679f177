// Writing admission webhook configurations: a mutating webhook sees (and may rewrite) every object created in
// the cluster, pods and their service accounts included; a validating one sees them all. DECISIONS "Kubernetes,
// as the API server decides": escalation at the resource-scoped price (it needs a webhook server of one's own).
import { grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const REQUESTS = requests(
  'admissionregistration.k8s.io',
  ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
  ['create', 'update', 'patch'],
);

export const admissionWebhooks: RbacPrimitive = {
  name: 'admission-webhooks',
  // Always resource-scoped: the grant is priced lower whatever it names.
  grants: (rules, _role, scope) => (grantOf(rules, REQUESTS, scope) ? 'named' : undefined),
};

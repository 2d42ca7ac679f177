// Approving certificate signing requests: with create on certificatesigningrequests, update on their
// `approval` subresource and `approve` on a signer that issues client certificates the API server trusts
// (`kubernetes.io/kube-apiserver-client`, `kubernetes.io/legacy-unknown`, or `kubernetes.io/*`), one signs a
// certificate for any user or group (`system:masters` included) and authenticates as it (DECISIONS
// "Kubernetes, as the API server decides"; the Kubernetes docs, "Certificates and Certificate Signing
// Requests", Authorization). Approving for another signer (`example.com/my-signer-name`) is nothing.
import { both, grantOf, requests, type PolicyRule, type RbacPrimitive } from './rbac-rule.js';

const GROUP = 'certificates.k8s.io';
const CREATE = requests(GROUP, ['certificatesigningrequests'], ['create']);
const APPROVE = requests(GROUP, ['certificatesigningrequests/approval'], ['update', 'patch']);
const SIGNERS = requests(GROUP, ['signers'], ['approve']);
const CLIENT_SIGNERS = new Set([
  'kubernetes.io/kube-apiserver-client',
  'kubernetes.io/legacy-unknown',
  'kubernetes.io/*',
]);

/** The rules' grant of `approve` on a client signer: any signer, or one named that issues client certificates. */
function clientSigner(rules: readonly PolicyRule[] | undefined, scope: 'cluster' | 'namespace') {
  const usable = (rules ?? []).filter(
    (r) =>
      !Array.isArray(r?.resourceNames) ||
      r.resourceNames.length === 0 ||
      r.resourceNames.some((n) => CLIENT_SIGNERS.has(n)),
  );
  return grantOf(usable, SIGNERS, scope);
}

export const csrApproval: RbacPrimitive = {
  name: 'approve-csr',
  grants: (rules, _role, scope) =>
    both(both(grantOf(rules, CREATE, scope), grantOf(rules, APPROVE, scope)), clientSigner(rules, scope)),
};

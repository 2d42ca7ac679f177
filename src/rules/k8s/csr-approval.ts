// Approving certificate signing requests: with create on certificatesigningrequests, update on their
// `approval` subresource and `approve` on a signer that issues client certificates, one signs a certificate
// for any user or group (`system:masters` included) and authenticates as it (DECISIONS "Kubernetes, as the
// API server decides"; the Kubernetes docs, "Certificates and Certificate Signing Requests", Authorization).
import { both, grantOf, requests, type RbacPrimitive } from './rbac-rule.js';

const GROUP = 'certificates.k8s.io';
const CREATE = requests(GROUP, ['certificatesigningrequests'], ['create']);
const APPROVE = requests(GROUP, ['certificatesigningrequests/approval'], ['update', 'patch']);
// `approve` on `signers`: resourceNames name the signer (`kubernetes.io/kube-apiserver-client`): a named
// grant on a client signer is the escalation, at the resource-scoped price.
const SIGNERS = requests(GROUP, ['signers'], ['approve']);

export const csrApproval: RbacPrimitive = {
  name: 'approve-csr',
  grants: (rules, _role, scope) =>
    both(both(grantOf(rules, CREATE, scope), grantOf(rules, APPROVE, scope)), grantOf(rules, SIGNERS, scope)),
};

// SOURCES: the one table of ingest sources, name -> normalizer. Adding a source is one file and one row.
import { createBuildSource } from './build.js';
import { createCloudnetSource } from './cloudnet.js';
import { createCustodianSource } from './custodian.js';
import { createDataclassSource } from './dataclass.js';
import { createEventsSource } from './events.js';
import { createFalcoSource } from './falco.js';
import { createGrypeSource } from './grype.js';
import { createIamSource } from './iam.js';
import { createK8sSource } from './k8s.js';
import { createSarifSource } from './sarif.js';
import { createSemgrepSource } from './semgrep.js';
import { createSsoSource } from './sso.js';
import { createSupplyChainSource } from './supplychain.js';
import { createTerraformSource } from './terraform.js';
import { createTrivySource } from './trivy.js';
import type { IngestSource } from './source.js';
import type { SignatureTrust } from '../signatures/trust.js';

export interface SourceOptions {
  /** SEED_IAM_USERS: the iam source marks every IAM user `credential_exposed` */
  seedIamUsers?: boolean;
  /** what supply-chain signatures verify against; unset: the public-good Sigstore root, no keys */
  signatures?: SignatureTrust;
}

export function createSources(options: SourceOptions = {}): ReadonlyMap<string, IngestSource> {
  const sources: IngestSource[] = [
    createEventsSource(),
    createTrivySource(),
    createGrypeSource(),
    createSemgrepSource(),
    createSarifSource(),
    createBuildSource(),
    createSupplyChainSource({ signatures: options.signatures }),
    createCustodianSource(),
    createCloudnetSource(),
    createIamSource({ seedIamUsers: options.seedIamUsers }),
    createK8sSource(),
    createFalcoSource(),
    createSsoSource(),
    createDataclassSource(),
    createTerraformSource(),
  ];
  for (const source of sources) source.expects ??= EXPECTS[source.name];
  return new Map(sources.map((s) => [s.name, s]));
}

/**
 * What each source reads, in words: named by the 400 that refuses a complete snapshot yielding no node and
 * no edge (DECISIONS.md "Empty snapshots are refused"), and by the warning on a partial one.
 */
export const EXPECTS: Readonly<Record<string, string>> = {
  events:
    'an event envelope {source, kind, observed_at?, nodes: [{id, label, name, properties}], edges: [{type, from, to, exploit_probability}]} with at least one node or edge',
  trivy:
    'a Trivy JSON report: an image, fs or repo scan (SchemaVersion 2: ArtifactName, Metadata, Results), or a trivy k8s report listing objects (ClusterName, Resources)',
  grype:
    'an Anchore Grype JSON report (`grype <image> -o json`): {matches: [{vulnerability, relatedVulnerabilities?, artifact}], source: {type: image|directory|file, target}, descriptor: {name: grype}}; a directory scan with ?repo= naming the repository',
  semgrep: 'semgrep --json output: results[] (with ?repo= naming the repository)',
  sarif:
    "a code scanner's SARIF 2.1.0 log (CodeQL, semgrep --sarif, SpotBugs, Gitleaks, ...): runs[].results[] (with ?repo= naming the repository)",
  build: 'CI build provenance {image, repository, slug?, sha?}',
  supplychain:
    '{image, signed?, slsa_level?, provenance_builder?, source_repo?, sbom?}, or a CycloneDX SBOM (of an image, or of the repository ?repo= names), an in-toto statement, a DSSE envelope, a Sigstore bundle (DSSE, or a signature over a blob with ?image=), PyPI PEP 740 attestations, npm attestations or Cloud Build provenance',
  custodian:
    'Cloud Custodian resources {provider, account_id, policies: [{policy, resource, resources: [...]}]} with at least one resource',
  cloudnet:
    'AWS network state with at least one instance, network interface or VPC peering: {security_groups, instances, vpc_peerings, subnets?, route_tables?, network_acls?, instance_profiles?, network_interfaces?} or the Describe* responses (SecurityGroups, Reservations, VpcPeeringConnections, ...)',
  iam: 'the account authorization details document (aws iam get-account-authorization-details) with at least one user or role: UserDetailList, GroupDetailList, RoleDetailList, Policies',
  k8s: 'a Kubernetes dump (a kubectl List or multi-document YAML) holding at least one Ingress, Service, Pod or workload, ServiceAccount, Role, ClusterRole, RoleBinding or ClusterRoleBinding',
  falco: 'Falco JSON alerts {rule, priority, output, output_fields} (one, an array, or NDJSON)',
  sso: 'identity provider users {provider, users: [{email, mfa, groups, federated_roles}], internet_login?}',
  dataclass:
    'data-classification findings {source, records: [{asset, label, kind, account?, region?}]} with at least one record',
  terraform:
    "a Terraform plan or state as `terraform show -json [<planfile>]` prints it (format_version 0.1 to 1.x; a plan's planned_values.root_module and resource_changes, a state's values.root_module) holding at least one AWS resource pathgate reads (security groups and rules, instances, instance profiles, IAM roles and policies, buckets, load balancers)",
};

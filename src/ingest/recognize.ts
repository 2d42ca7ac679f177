// Which ingest source a report on disk belongs to, judged by its content (file names are not trusted).
// Used by `pathgate ingestreal`, `pathgate gate -local` and the gate when no `source` is named.

export type RecognizedSource =
  | 'trivy'
  | 'semgrep'
  | 'supplychain'
  | 'build'
  | 'events'
  | 'custodian'
  | 'cloudnet'
  | 'iam'
  | 'sso'
  | 'dataclass';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The source a parsed JSON report is for, or undefined when no source takes reports of its shape. */
export function recognizeReport(report: unknown): RecognizedSource | undefined {
  if (!isObject(report)) return undefined;
  if (report.SchemaVersion !== undefined && 'ArtifactName' in report) return 'trivy';
  if (Array.isArray(report.results) && report.results.every((r) => isObject(r) && 'check_id' in r))
    return 'semgrep';
  if (report.bomFormat === 'CycloneDX') return 'supplychain';
  if (typeof report._type === 'string' && report._type.startsWith('https://in-toto.io/Statement/'))
    return 'supplychain';
  if (typeof report.payloadType === 'string' && typeof report.payload === 'string') return 'supplychain';
  if (
    typeof report.mediaType === 'string' &&
    report.mediaType.startsWith('application/vnd.dev.sigstore.bundle')
  )
    return 'supplychain';
  if (Array.isArray(report.attestations)) return 'supplychain';
  if (typeof report.account_id === 'string' && Array.isArray(report.policies)) return 'custodian';
  if (Array.isArray(report.UserDetailList) || Array.isArray(report.RoleDetailList)) return 'iam';
  if (typeof report.provider === 'string' && Array.isArray(report.users)) return 'sso';
  if (
    ['security_groups', 'vpc_peerings', 'route_tables', 'SecurityGroups', 'VpcPeeringConnections'].some(
      (k) => k in report,
    )
  )
    return 'cloudnet';
  if (typeof report.source === 'string' && Array.isArray(report.records)) return 'dataclass';
  if (typeof report.image === 'string' && typeof report.repository === 'string') return 'build';
  if (typeof report.image === 'string') return 'supplychain';
  if (Array.isArray(report.nodes) && Array.isArray(report.edges) && typeof report.source === 'string')
    return 'events';
  return undefined;
}

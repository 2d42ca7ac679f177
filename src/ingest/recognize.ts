// Which ingest source a report on disk belongs to, judged by its content (file names are not trusted).
// Used by `pathgate ingestreal`, `pathgate gate -local` and the gate when no `source` is named. `readReport`
// reads a file's text as JSON, NDJSON (Falco's alert log) or multi-document YAML (kubectl), in that order,
// and a CycloneDX XML BOM as its JSON twin.
import { isLegacyTrivyReport } from './sources/trivy.js';
import { isTrivyClusterReport } from './sources/trivy-k8s.js';
import { looksLikeOperatorReports } from './sources/trivy-operator.js';
import { isFalcoTextLog } from './sources/falco.js';
import {
  isGcbProvenance,
  isProvenanceDocument,
  isPypiAttestation,
  isPypiProvenance,
} from './sources/provenance.js';
import { isRawState } from './sources/terraform-state.js';
import { cyclonedxXmlToJson, looksLikeXml, NotCycloneDxXml } from './cyclonedx-xml.js';
import { yamlToList } from './yaml.js';

export type RecognizedSource =
  | 'trivy'
  | 'grype'
  | 'semgrep'
  | 'sarif'
  | 'supplychain'
  | 'build'
  | 'events'
  | 'custodian'
  | 'cloudnet'
  | 'iam'
  | 'sso'
  | 'dataclass'
  | 'k8s'
  | 'falco'
  | 'terraform';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The source a parsed JSON report is for, or undefined when no source takes reports of its shape. */
export function recognizeReport(report: unknown): RecognizedSource | undefined {
  if (Array.isArray(report)) {
    if (report.length && report.every(isFalcoAlert)) return 'falco';
    // Attestations one per line: `cosign download attestation`, `gh attestation download`'s .jsonl
    if (report.length && report.every(isProvenanceDocument)) return 'supplychain';
    if (looksLikeOperatorReports(report)) return 'trivy';
    // Refused by name there (rescan with a current Trivy), which says more than a skip.
    return isLegacyTrivyReport(report) ? 'trivy' : undefined;
  }
  if (!isObject(report)) return undefined;
  // Trivy Operator's reports are Kubernetes objects, but findings: alone (not in a dump), Trivy's.
  if (looksLikeOperatorReports(report)) return 'trivy';
  if (isKubernetesObject(report)) return 'k8s';
  if (isFalcoAlert(report)) return 'falco';
  // Falco's text output: the falco source refuses it by name, saying how to have Falco write JSON.
  if (isFalcoTextLog(report)) return 'falco';
  if (report.SchemaVersion !== undefined && 'ArtifactName' in report) return 'trivy';
  if (isTrivyClusterReport(report)) return 'trivy';
  if (isGrypeReport(report)) return 'grype';
  if (Array.isArray(report.results) && report.results.every((r) => isObject(r) && 'check_id' in r))
    return 'semgrep';
  if (isSarifLog(report)) return 'sarif';
  if (report.bomFormat === 'CycloneDX') return 'supplychain';
  // An SPDX SBOM: the supply-chain source reads its packages (spdx.ts).
  if (typeof report.spdxVersion === 'string') return 'supplychain';
  if (typeof report._type === 'string' && report._type.startsWith('https://in-toto.io/Statement/'))
    return 'supplychain';
  if (typeof report.payloadType === 'string' && typeof report.payload === 'string') return 'supplychain';
  if (
    typeof report.mediaType === 'string' &&
    report.mediaType.startsWith('application/vnd.dev.sigstore.bundle')
  )
    return 'supplychain';
  if (Array.isArray(report.attestations)) return 'supplychain';
  if (isGcbProvenance(report)) return 'supplychain';
  // PyPI's PEP 740 attestations: one (`<file>.publish.attestation`), or the integrity API's provenance object
  if (isPypiAttestation(report) || isPypiProvenance(report)) return 'supplychain';
  if (typeof report.account_id === 'string' && Array.isArray(report.policies)) return 'custodian';
  // `terraform show -json <planfile>`, and `terraform show -json` of a state (`values.root_module`)
  if (
    typeof report.format_version === 'string' &&
    ('planned_values' in report ||
      'resource_changes' in report ||
      (isObject(report.values) && 'root_module' in report.values))
  )
    return 'terraform';
  // A raw `terraform.tfstate` (what `terraform state pull` prints)
  if (isRawState(report)) return 'terraform';
  if (Array.isArray(report.UserDetailList) || Array.isArray(report.RoleDetailList)) return 'iam';
  if (typeof report.provider === 'string' && Array.isArray(report.users)) return 'sso';
  if (
    [
      'security_groups',
      'vpc_peerings',
      'route_tables',
      'SecurityGroups',
      'VpcPeeringConnections',
      // `aws ec2 describe-instances` and `describe-network-interfaces` as printed: the instances cloudnet reads
      'Reservations',
      'NetworkInterfaces',
    ].some((k) => k in report)
  )
    return 'cloudnet';
  if (typeof report.source === 'string' && Array.isArray(report.records)) return 'dataclass';
  if (typeof report.image === 'string' && typeof report.repository === 'string') return 'build';
  if (typeof report.image === 'string') return 'supplychain';
  if (Array.isArray(report.nodes) && Array.isArray(report.edges) && typeof report.source === 'string')
    return 'events';
  return undefined;
}

/**
 * A Kubernetes object or list as the API writes it: `apiVersion` and `kind` (a `List` holds `items`). The
 * items of a typed list (`PodList`, as the API server and the kubelet return it) do not repeat their kind.
 */
/**
 * `grype -o json`: a `matches` list and the scanned `source`, or Grype's own descriptor. A report with
 * matches but neither is still taken, so that its 400 names what is missing rather than being skipped.
 */
function isGrypeReport(report: Record<string, unknown>): boolean {
  if (!Array.isArray(report.matches)) return false;
  const descriptor = report.descriptor;
  if (isObject(descriptor) && descriptor.name === 'grype') return true;
  return (
    isObject(report.source) ||
    report.matches.some((m) => isObject(m) && isObject(m.vulnerability) && isObject(m.artifact))
  );
}

function isKubernetesObject(value: unknown): boolean {
  if (!isObject(value) || typeof value.kind !== 'string' || typeof value.apiVersion !== 'string')
    return false;
  if (Array.isArray(value.items)) {
    // A typed list (`PodList`) is the API's own shape: its items are the k8s source's to judge (one it
    // refuses is named by its pointer, rather than the whole file being skipped).
    if (value.kind !== 'List' && value.kind.endsWith('List')) return true;
    return value.items.every(isKubernetesObject);
  }
  return isObject(value.metadata) || value.kind.endsWith('List');
}

/** A SARIF log (`$schema` naming SARIF, or runs that each name their tool); the source judges its version. */
function isSarifLog(report: Record<string, unknown>): boolean {
  if (typeof report.version !== 'string' || !Array.isArray(report.runs)) return false;
  if (typeof report.$schema === 'string' && /sarif/i.test(report.$schema)) return true;
  return report.runs.length > 0 && report.runs.every((run) => isObject(run) && isObject(run.tool));
}

/** One Falco alert: the rule that fired and its output fields. */
function isFalcoAlert(value: unknown): boolean {
  return isObject(value) && typeof value.rule === 'string' && isObject(value.output_fields);
}

export type ReportFormat = 'json' | 'ndjson' | 'yaml' | 'xml';

/**
 * A report file's bytes as text: UTF-8, or UTF-16 when a byte-order mark says so (Windows PowerShell's `>`
 * writes `terraform show -json` and `aws ... --output json` as UTF-16LE); a UTF-8 byte-order mark dropped.
 */
export function decodeReportFile(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.subarray(2).toString('utf16le');
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    const swapped = Buffer.from(bytes.subarray(2, 2 + ((bytes.length - 2) & ~1)));
    return swapped.swap16().toString('utf16le');
  }
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** How much of a file is looked at for a NUL byte: as much as git looks at to call a file binary. */
const BINARY_SNIFF_BYTES = 8000;

/**
 * Whether a file is binary (an image, an archive, a compiled program beside the reports): a NUL byte near
 * its start, as git decides, unless a UTF-16 byte-order mark says the NULs are text.
 */
export function isBinaryFile(bytes: Buffer): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return false;
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/**
 * A report file's content as a body the ingest sources take: one JSON document; else one JSON value per
 * line (NDJSON) as an array; else multi-document YAML as a Kubernetes `List` (one document on its own when
 * it is not a Kubernetes object). Throws with the reason when it is none of them.
 */
export function readReport(text: string): { body: unknown; format: ReportFormat } {
  // XML: a CycloneDX BOM, read as its JSON twin; any other XML is named for what it is.
  if (looksLikeXml(text)) {
    try {
      return { body: cyclonedxXmlToJson(text), format: 'xml' };
    } catch (error) {
      if (error instanceof NotCycloneDxXml) throw new Error(error.message, { cause: error });
      throw error;
    }
  }
  try {
    return { body: JSON.parse(text), format: 'json' };
  } catch {
    // not one JSON document
  }
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length > 1 && lines.every((line) => line.trimStart().startsWith('{'))) {
    try {
      return { body: lines.map((line) => JSON.parse(line) as unknown), format: 'ndjson' };
    } catch {
      // not NDJSON either
    }
  }
  let list: { items: unknown[] };
  try {
    list = yamlToList(text);
  } catch (error) {
    // A chart's template (`name: {{ .Values.name }}`) is no manifest until it is rendered.
    const template = /\{\{-?\s*[.$A-Za-z"]/.test(text)
      ? '; a Helm or Go template, render it first (`helm template`)'
      : '';
    throw new Error(`not JSON, NDJSON or YAML (${(error as Error).message})${template}`, { cause: error });
  }
  if (!list.items.length) throw new Error('not JSON, NDJSON or YAML (no document)');
  if (list.items.every(isKubernetesObject)) return { body: list, format: 'yaml' };
  return { body: list.items.length === 1 ? list.items[0] : list.items, format: 'yaml' };
}

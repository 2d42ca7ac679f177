// A Trivy JSON report (SchemaVersion 2) as the trivy source reads it: its shape in TypeScript, and the parts
// of the JSON schema its reports are checked against (an image scan's metadata and results, a `trivy k8s`
// report's objects). trivy-k8s.ts and trivy-operator.ts read their reports into the same results.

export interface TrivyReport {
  SchemaVersion: number;
  CreatedAt?: string;
  ArtifactName: string;
  ArtifactType?: string;
  Trivy?: { Version?: string };
  Metadata?: TrivyMetadata;
  Results?: TrivyResult[];
}

export interface TrivyMetadata {
  OS?: { Family?: string; Name?: string; EOSL?: boolean };
  ImageID?: string;
  RepoTags?: string[] | null;
  RepoDigests?: string[] | null;
  Reference?: string;
  RepoURL?: string;
  Branch?: string;
  Commit?: string;
}

export interface TrivyResult {
  Target: string;
  Class?: string;
  Type?: string;
  Packages?: TrivyPackage[];
  Vulnerabilities?: TrivyVulnerability[];
  Secrets?: TrivySecret[];
  Misconfigurations?: TrivyMisconfiguration[];
}

interface TrivyPackage {
  ID?: string;
  Name: string;
  Version?: string;
  Identifier?: { PURL?: string };
  Relationship?: string;
  FilePath?: string;
}

interface CvssEntry {
  V2Vector?: string;
  V3Vector?: string;
  V40Vector?: string;
  V2Score?: number;
  V3Score?: number;
  V40Score?: number;
}

export interface TrivyVulnerability {
  VulnerabilityID: string;
  PkgID?: string;
  PkgName?: string;
  PkgPath?: string;
  PkgIdentifier?: { PURL?: string };
  InstalledVersion?: string;
  FixedVersion?: string;
  Status?: string;
  SeveritySource?: string;
  PrimaryURL?: string;
  Title?: string;
  Severity?: string;
  CweIDs?: string[];
  CVSS?: Record<string, CvssEntry>;
  PublishedDate?: string;
  LastModifiedDate?: string;
}

export interface TrivySecret {
  RuleID: string;
  Category?: string;
  Severity?: string;
  Title?: string;
  StartLine?: number;
}

export interface TrivyMisconfiguration {
  ID?: string;
  AVDID?: string;
  Title?: string;
  Message?: string;
  Resolution?: string;
  Severity?: string;
  PrimaryURL?: string;
  Status?: string;
}

const SEVERITY = { type: 'string' };
const CVSS_SCORE = { type: 'number', minimum: 0, maximum: 10 };

const METADATA_PROPERTIES = {
  ImageID: { type: 'string' },
  RepoTags: { type: ['array', 'null'], items: { type: 'string' } },
  RepoDigests: { type: ['array', 'null'], items: { type: 'string' } },
  Reference: { type: 'string' },
};
export const METADATA = { type: 'object', properties: METADATA_PROPERTIES };

export const RESULTS = {
  type: ['array', 'null'],
  items: {
    type: 'object',
    required: ['Target'],
    properties: {
      Target: { type: 'string' },
      Class: { type: 'string' },
      Type: { type: 'string' },
      Packages: {
        type: ['array', 'null'],
        items: { type: 'object', required: ['Name'], properties: { Name: { type: 'string' } } },
      },
      Vulnerabilities: {
        type: ['array', 'null'],
        items: {
          type: 'object',
          required: ['VulnerabilityID'],
          properties: {
            VulnerabilityID: { type: 'string', minLength: 1 },
            PkgName: { type: 'string' },
            Severity: SEVERITY,
            CweIDs: { type: ['array', 'null'], items: { type: 'string' } },
            CVSS: {
              type: 'object',
              additionalProperties: {
                type: 'object',
                // A score outside CVSS's range is refused (docs/errors.md), not used to price a hop.
                properties: { V2Score: CVSS_SCORE, V3Score: CVSS_SCORE, V40Score: CVSS_SCORE },
              },
            },
          },
        },
      },
      Secrets: {
        type: ['array', 'null'],
        items: { type: 'object', required: ['RuleID'], properties: { RuleID: { type: 'string' } } },
      },
      Misconfigurations: { type: ['array', 'null'], items: { type: 'object' } },
    },
  },
};

/** One object's entry of a `trivy k8s` report (trivy-k8s.ts): its image's metadata, one or a list of them. */
export const CLUSTER_RESOURCES = {
  type: ['array', 'null'],
  items: {
    type: 'object',
    required: ['Kind', 'Name'],
    properties: {
      Namespace: { type: 'string' },
      Kind: { type: 'string', minLength: 1 },
      Name: { type: 'string', minLength: 1 },
      Metadata: { type: ['object', 'array', 'null'], properties: METADATA_PROPERTIES, items: METADATA },
      Results: RESULTS,
      Error: { type: 'string' },
    },
  },
};

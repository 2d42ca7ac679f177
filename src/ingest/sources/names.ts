// The names of the ingest sources (the table is src/ingest/sources/index.ts), without their code: for
// clients that check a `source` before asking (the GitHub Action's bundle, the CLI). A test keeps the two
// lists equal.
export const SOURCE_NAMES = [
  'events',
  'trivy',
  'grype',
  'semgrep',
  'sarif',
  'build',
  'supplychain',
  'custodian',
  'cloudnet',
  'iam',
  'k8s',
  'falco',
  'sso',
  'dataclass',
  'terraform',
] as const;

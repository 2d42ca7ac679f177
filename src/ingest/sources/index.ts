// SOURCES: the one table of ingest sources, name -> normalizer. Adding a source is one file and one row.
import { createBuildSource } from './build.js';
import { createCloudnetSource } from './cloudnet.js';
import { createCustodianSource } from './custodian.js';
import { createDataclassSource } from './dataclass.js';
import { createEventsSource } from './events.js';
import { createFalcoSource } from './falco.js';
import { createIamSource } from './iam.js';
import { createK8sSource } from './k8s.js';
import { createSemgrepSource } from './semgrep.js';
import { createSsoSource } from './sso.js';
import { createSupplyChainSource } from './supplychain.js';
import { createTrivySource } from './trivy.js';
import type { IngestSource } from './source.js';

export function createSources(): ReadonlyMap<string, IngestSource> {
  const sources: IngestSource[] = [
    createEventsSource(),
    createTrivySource(),
    createSemgrepSource(),
    createBuildSource(),
    createSupplyChainSource(),
    createCustodianSource(),
    createCloudnetSource(),
    createIamSource(),
    createK8sSource(),
    createFalcoSource(),
    createSsoSource(),
    createDataclassSource(),
  ];
  return new Map(sources.map((s) => [s.name, s]));
}

// Which source a connector runs in which mode: the one table from settings to ConnectorSource. `clouda`
// `sdk` is the AWS SDK source (src/connectors/clouda/sdk.ts, `createCloudaSdkSource`), loaded lazily so
// the AWS SDK is read only by a service that pulls AWS live; a build without it refuses the start with a
// clear error instead of failing at the first pull. `cloudb` has no live mode: the settings refuse it.
import type { ConnectorMode, ConnectorName, ConnectorSettings } from '../config/connector-settings.js';
import type { ConnectorSource } from './connector.js';
import { createCloudaFixturesSource } from './clouda/fixtures.js';
import { createCloudbFixturesSource } from './cloudb/fixtures.js';

/** What the clouda SDK source is made from (the settings it reads). */
export interface CloudaSdkOptions {
  region: string;
  /** CLOUDA_ROLE_ARN: one role per account; none: the credentials' own account */
  roleArns: string[];
}

type Factory = (settings: ConnectorSettings) => Promise<ConnectorSource>;

export class ConnectorStartError extends Error {
  override name = 'ConnectorStartError';
}

// A path in a variable: the module is loaded only in sdk mode, and only this entry needs it.
const CLOUDA_SDK_MODULE = './clouda/sdk.js';

async function cloudaSdk(settings: ConnectorSettings): Promise<ConnectorSource> {
  let module: {
    createCloudaSdkSource?: (options: CloudaSdkOptions) => ConnectorSource | Promise<ConnectorSource>;
  };
  try {
    module = (await import(CLOUDA_SDK_MODULE)) as typeof module;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    module = {};
  }
  if (typeof module.createCloudaSdkSource !== 'function')
    throw new ConnectorStartError(
      'CLOUDA_CONNECTOR_MODE=sdk: this build has no AWS SDK source (src/connectors/clouda/sdk.ts); set CLOUDA_CONNECTOR_MODE=fixtures with CLOUDA_FIXTURES_DIR, or run a build that has it',
    );
  return module.createCloudaSdkSource({ region: settings.clouda.region, roleArns: settings.clouda.roleArns });
}

export const SOURCE_FACTORIES: Readonly<Record<ConnectorName, Partial<Record<ConnectorMode, Factory>>>> = {
  clouda: {
    fixtures: async (s) =>
      createCloudaFixturesSource({ dir: s.clouda.fixturesDir!, region: s.clouda.region }),
    sdk: cloudaSdk,
  },
  cloudb: {
    fixtures: async (s) => createCloudbFixturesSource({ dir: s.cloudb.fixturesDir! }),
  },
};

/** The sources of the enabled connectors; a connector that cannot be made refuses the start. */
export async function createSources(settings: ConnectorSettings): Promise<ConnectorSource[]> {
  const sources: ConnectorSource[] = [];
  for (const name of settings.enabled) {
    const mode = settings[name].mode;
    const factory = SOURCE_FACTORIES[name][mode];
    if (!factory) throw new ConnectorStartError(`the ${name} connector has no ${mode} mode`);
    sources.push(await factory(settings));
  }
  return sources;
}

// Which source a connector runs in which mode: the one table from settings to ConnectorSource. `clouda`
// `sdk` is the AWS SDK source (src/connectors/clouda/sdk.ts, `createCloudaSdkSource`), loaded lazily so
// the AWS SDK is read only by a service that pulls AWS live. `cloudb` has no live mode: the settings refuse it.
import type { ConnectorMode, ConnectorName, ConnectorSettings } from '../config/connector-settings.js';
import type { ConnectorSource } from './connector.js';
import { createCloudaFixturesSource } from './clouda/fixtures.js';
import { createCloudbFixturesSource } from './cloudb/fixtures.js';

type Factory = (settings: ConnectorSettings) => Promise<ConnectorSource>;

export class ConnectorStartError extends Error {
  override name = 'ConnectorStartError';
}

// Loaded on first use: only a service that pulls AWS live reads the AWS SDK.
async function cloudaSdk(settings: ConnectorSettings): Promise<ConnectorSource> {
  const { createCloudaSdkSource } = await import('./clouda/sdk.js');
  return createCloudaSdkSource({ region: settings.clouda.region, roleArns: settings.clouda.roleArns });
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

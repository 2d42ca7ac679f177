// A `custodian run` output folder, as `pathgate ingestreal` finds it: each policy's `resources.json` (a bare
// list of the resources it matched) beside the `metadata.json` that names the policy, its resource type and
// the account and region it ran in (c7n-org writes one such folder per account and region). Read together,
// they are the custodian source's report; alone, the list says nothing of where it came from.

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a JSON document is a Custodian run's metadata.json (the policy it ran, when, with what options). */
export function isCustodianMetadata(value: unknown): value is Json {
  return (
    isObject(value) &&
    isObject(value.policy) &&
    typeof value.policy.name === 'string' &&
    typeof value.policy.resource === 'string' &&
    isObject(value.execution) &&
    isObject(value.config)
  );
}

/**
 * The custodian source's report for one policy's resources and the metadata beside them: the provider from
 * the resource type (`aws.ec2`, or `ec2` for AWS), the account and region from the run's options.
 */
export function custodianReport(resources: unknown[], metadata: Json): Json {
  const policy = metadata.policy as Json;
  const config = metadata.config as Json;
  const resource = String(policy.resource);
  const dot = resource.indexOf('.');
  return {
    provider: dot > 0 ? resource.slice(0, dot) : 'aws',
    ...(typeof config.account_id === 'string' && config.account_id && { account_id: config.account_id }),
    ...(typeof config.region === 'string' && config.region && { region: config.region }),
    policies: [{ policy: policy.name, resource, resources }],
  };
}

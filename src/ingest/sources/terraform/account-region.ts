// Where a Terraform document's resources are, for what it does not say itself: the account its ARNs name (a
// name is qualified by it when `?account=` is not given) and the region, the provider's configured one, else
// in a state the first its ARNs name. Both are read once per document, by the entry (terraform.ts).
import { parseIamArn } from '../account.js';
import type { PlanResource, Values } from './plan-walk.js';

/** The account: the first account named by an ARN in the plan's values. */
export function accountOf(resources: PlanResource[]): string | undefined {
  for (const r of resources) {
    const arn = r.values.arn;
    if (typeof arn !== 'string') continue;
    const iamArn = parseIamArn(arn);
    if (iamArn) return iamArn.account;
    const account = /^arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(\d{12}):/.exec(arn)?.[1];
    if (account) return account;
  }
  return undefined;
}

/** A state's region: the first region named by an ARN of its resources (a state holds no configuration). */
export function arnRegionOf(resources: PlanResource[]): string | undefined {
  for (const r of resources) {
    const region =
      typeof r.values.arn === 'string' &&
      /^arn:aws[a-z-]*:[a-z0-9-]+:([a-z]{2}(?:-[a-z]+)+-\d):/.exec(r.values.arn)?.[1];
    if (region) return region;
  }
  return undefined;
}

export function regionOf(plan: Values): string | undefined {
  const region = plan.configuration?.provider_config?.aws?.expressions?.region?.constant_value;
  return typeof region === 'string' ? region : undefined;
}

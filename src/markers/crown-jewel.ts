// crown_jewel (spec "Marker derivation"): an owner tag (classification-like key with a sensitive value, or
// `crown-jewel=true`); an IAM role with the administrator managed policy; or, inferred, a Database or
// Bucket whose name carries a strong sensitive-data signal (`crown_jewel_basis=inferred:<signal>`), which
// an explicit owner tag overrides either way.

const CLASSIFICATION_KEYS = new Set(['classification', 'data-classification', 'data', 'sensitivity']);
const SENSITIVE_VALUES = new Set(['pii', 'sensitive', 'confidential', 'restricted', 'secret']);
/** Name signals strong enough to infer sensitive data. */
const NAME_SIGNALS = [
  'pii',
  'customer',
  'payment',
  'billing',
  'payroll',
  'ssn',
  'credential',
  'secret',
  'patient',
  'medical',
  'card',
];

export type Tags = Record<string, string>;

/** AWS tag lists (`[{Key, Value}]`) and maps alike, keys lowercased. */
export function readTags(raw: unknown): Tags {
  const tags: Tags = {};
  if (Array.isArray(raw)) {
    for (const t of raw)
      if (t && typeof t === 'object' && typeof (t as { Key?: unknown }).Key === 'string')
        tags[(t as { Key: string }).Key.toLowerCase()] = String((t as { Value?: unknown }).Value ?? '');
  } else if (raw && typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw)) tags[k.toLowerCase()] = String(v);
  }
  return tags;
}

export interface CrownJewel {
  crown_jewel?: boolean;
  crown_jewel_basis?: string;
}

/** The marker an owner's tags set: true, false (an explicit "not sensitive"), or nothing said. */
function fromTags(tags: Tags): CrownJewel | undefined {
  if (tags['crown-jewel'] !== undefined) {
    const yes = tags['crown-jewel'].toLowerCase() === 'true';
    return { crown_jewel: yes, crown_jewel_basis: `tag:crown-jewel=${tags['crown-jewel']}` };
  }
  for (const key of CLASSIFICATION_KEYS) {
    const value = tags[key]?.toLowerCase();
    if (value === undefined) continue;
    return SENSITIVE_VALUES.has(value)
      ? { crown_jewel: true, crown_jewel_basis: `tag:${key}=${value}` }
      : { crown_jewel: false, crown_jewel_basis: `tag:${key}=${value}` };
  }
  return undefined;
}

export function crownJewel(asset: {
  label: 'Database' | 'Bucket' | 'IAM_Role' | 'VirtualMachine' | 'LoadBalancer';
  name: string;
  tags: Tags;
  managedPolicies?: string[];
}): CrownJewel {
  const tagged = fromTags(asset.tags);
  if (tagged) return tagged;
  if (asset.label === 'IAM_Role' && asset.managedPolicies?.some((p) => /(^|\/)AdministratorAccess$/.test(p)))
    return { crown_jewel: true, crown_jewel_basis: 'policy:AdministratorAccess' };
  if (asset.label === 'Database' || asset.label === 'Bucket') {
    const name = asset.name.toLowerCase();
    const signal = NAME_SIGNALS.find((s) =>
      name.split(/[^a-z0-9]+/).some((part) => part === s || part === `${s}s`),
    );
    if (signal) return { crown_jewel: true, crown_jewel_basis: `inferred:${signal}` };
  }
  return {};
}

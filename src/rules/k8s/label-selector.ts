// A Kubernetes label selector (`matchLabels`, `matchExpressions`), as the API server matches one: read by
// ClusterRole aggregation (aggregation.ts) and by the Gateway API's listener namespace selectors
// (src/ingest/sources/k8s-gateway-api.ts).

/**
 * Whether a label selector matches a set of labels, as Kubernetes matches one: every `matchLabels` pair,
 * every `matchExpressions` requirement (In, NotIn, Exists, DoesNotExist); an empty selector matches
 * everything. A selector the API server would refuse (an unknown operator, not an object) matches none.
 */
export function selects(selector: unknown, labels: unknown): boolean {
  if (!selector || typeof selector !== 'object') return false;
  const given: Record<string, unknown> = labels && typeof labels === 'object' ? (labels as never) : {};
  const { matchLabels, matchExpressions } = selector as { matchLabels?: unknown; matchExpressions?: unknown };
  if (matchLabels && typeof matchLabels === 'object')
    for (const [key, value] of Object.entries(matchLabels)) if (given[key] !== value) return false;
  if (Array.isArray(matchExpressions))
    for (const requirement of matchExpressions) {
      const key = requirement?.key;
      if (typeof key !== 'string') return false;
      const present = typeof given[key] === 'string';
      const values: unknown[] = Array.isArray(requirement.values) ? requirement.values : [];
      switch (requirement.operator) {
        case 'In':
          if (!present || !values.includes(given[key])) return false;
          break;
        case 'NotIn':
          if (present && values.includes(given[key])) return false;
          break;
        case 'Exists':
          if (!present) return false;
          break;
        case 'DoesNotExist':
          if (present) return false;
          break;
        default:
          return false;
      }
    }
  return true;
}

// Misconfiguration check ids as one canonical id per check, so that a rescan by another Trivy version names
// the same finding node (a renamed node would be retracted and added again by the snapshot sweep, resolving
// and reopening its paths). Trivy has written the same check four ways (trivy-checks' metadata and Trivy's
// own goldens): `ID: "KSV001"` alone (2022's `trivy k8s`), `ID: "KSV001"` with `AVDID: "AVD-KSV-0001"` (until
// trivy-checks v2, January 2026), `ID: "KSV-0001"` alone (since); cloud checks `AVD-AWS-0088` (as ID and
// AVDID), an ID such as `aws-s3-enable-bucket-encryption` beside `AVDID: "AVD-AWS-0088"`, then `AWS-0088`.
// The canonical id is trivy-checks v2's: `<FAMILY>-<number, 4 digits at least>`, for every family (KSV, KCV,
// DS, AWS, AZU, GCP, DIG, NIF, ...).

/**
 * Legacy ids whose number is not the check's (trivy-checks v2 lists them among the check's aliases); every
 * other legacy id (`KSV001`, `DS002`, `KCV0001`, `GCP001`) keeps its number.
 */
const LEGACY_IDS: Readonly<Record<string, string>> = {
  KCV0135: 'KCV-0035',
  KSV0012: 'KCV-0012',
};

/** `KSV-0001`, `KSV001`, `AWS-0088` once `AVD-` is taken off; a family may have dashes (`FOO-BAR-1`). */
const NUMBERED = /^([A-Z]+(?:-[A-Z]+)*?)-?([0-9]+)$/;

/** One id as Trivy wrote it, canonical when it is a numbered check id; undefined when it is not one. */
function numbered(value: string): string | undefined {
  const upper = value.trim().toUpperCase();
  const legacy = LEGACY_IDS[upper];
  if (legacy) return legacy;
  const match = NUMBERED.exec(upper.replace(/^AVD-/, ''));
  return match ? `${match[1]}-${match[2].padStart(4, '0')}` : undefined;
}

/**
 * The canonical id of a check Trivy reports as `ID` and (until 2026) `AVDID`: the AVD id when there is one
 * (it always carries the check's number), else the ID; either written `<FAMILY>-<4 digits>`. An id that is
 * no numbered check id (a custom check's long name) is kept as reported. Undefined when neither is given.
 */
export function canonicalCheckId(id: string | undefined, avdId: string | undefined): string | undefined {
  const given = [avdId, id].filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  for (const value of given) {
    const canonical = numbered(value);
    if (canonical) return canonical;
  }
  return given.length ? given[given.length - 1].trim() : undefined;
}

// Trivy's misconfiguration ids, as its versions wrote them (Trivy's goldens before and after trivy-checks v2,
// 2022's `trivy k8s`, trivy-checks' metadata), read to one canonical id per check.
import { describe, expect, it } from 'vitest';
import { canonicalCheckId } from '../../src/identity/check-id.js';

describe('canonicalCheckId', () => {
  const sameCheck: [string, { id?: string; avd?: string }[], string][] = [
    [
      'Kubernetes (KSV)',
      [{ id: 'KSV001' }, { id: 'KSV001', avd: 'AVD-KSV-0001' }, { id: 'KSV-0001' }, { avd: 'AVD-KSV-0001' }],
      'KSV-0001',
    ],
    ['Dockerfile (DS)', [{ id: 'DS002', avd: 'AVD-DS-0002' }, { id: 'DS-0002' }, { id: 'ds002' }], 'DS-0002'],
    [
      'AWS, whose ID was the AVD id, or a long name beside it',
      [
        { id: 'AVD-AWS-0088', avd: 'AVD-AWS-0088' },
        { id: 'aws-s3-enable-bucket-encryption', avd: 'AVD-AWS-0088' },
        { id: 'AWS-0088' },
      ],
      'AWS-0088',
    ],
    [
      'Kubernetes CIS (KCV, 4 legacy digits)',
      [{ id: 'KCV0001', avd: 'AVD-KCV-0001' }, { id: 'KCV-0001' }],
      'KCV-0001',
    ],
    [
      'Google Cloud (legacy GCP001)',
      [{ id: 'GCP001' }, { avd: 'AVD-GCP-0001' }, { id: 'GCP-0001' }],
      'GCP-0001',
    ],
    ['a family of several letters', [{ avd: 'AVD-OPNSTK-0001' }, { id: 'OPNSTK-0001' }], 'OPNSTK-0001'],
    ['an AVD id written without its dash', [{ avd: 'AVD-KSV012' }, { id: 'KSV-0012' }], 'KSV-0012'],
    [
      'a legacy id whose number is not the check\u2019s (trivy-checks aliases)',
      [{ id: 'KSV0012' }, { id: 'KSV0012', avd: 'AVD-KCV-0012' }, { id: 'KCV-0012' }],
      'KCV-0012',
    ],
    ['the other one', [{ id: 'KCV0135' }, { id: 'KCV-0035' }], 'KCV-0035'],
  ];
  for (const [name, forms, canonical] of sameCheck)
    it(`${name}: every version's id is ${canonical}`, () => {
      for (const form of forms)
        expect(canonicalCheckId(form.id, form.avd), JSON.stringify(form)).toBe(canonical);
    });

  it('twins: different checks stay different, a legacy 4-digit KSV id is not the 3-digit one', () => {
    expect(canonicalCheckId('KSV001', undefined)).not.toBe(canonicalCheckId('KSV003', undefined));
    expect(canonicalCheckId('KSV-0001', undefined)).not.toBe(canonicalCheckId(undefined, 'AVD-KSV-0010'));
    expect(canonicalCheckId('KSV012', undefined)).toBe('KSV-0012');
    expect(canonicalCheckId('KSV0012', undefined)).toBe('KCV-0012');
    expect(canonicalCheckId('DS-0002', undefined)).not.toBe(canonicalCheckId('KSV-0002', undefined));
  });

  it('keeps an id that is no numbered check id as reported; nothing without an id', () => {
    expect(canonicalCheckId('my-custom-check', undefined)).toBe('my-custom-check');
    expect(canonicalCheckId(undefined, undefined)).toBeUndefined();
    expect(canonicalCheckId(' ', '')).toBeUndefined();
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hasKnownLabel, idLabel, nodeId } from '../../src/graph/ids.js';
import { isNodeLabel, NODE_LABELS } from '../../src/graph/vocabulary.js';

describe('node ids', () => {
  it('derives <Label>:<first 16 hex of SHA-1 of the lowercased name>', () => {
    expect(nodeId('Database', 'Orders')).toBe(nodeId('Database', 'orders'));
    expect(nodeId('Database', 'orders')).toMatch(/^Database:[0-9a-f]{16}$/);
    expect(nodeId('IAM_Role', 'admin')).toBe('IAM_Role:d033e22ae348aeb5');
  });

  it('joins to the same id as the template it replaced, for every label and any name', () => {
    // The id is written by join (one flat string) since issue 38's k8s work; the formula is the same.
    const names = ['', 'a', 'Team-1/App-0', 'ünïcödé/Straße', '日本/サービス', 'x'.repeat(300), 'tab\there'];
    for (let i = 0; i < 200; i++)
      names.push(
        String.fromCharCode(...Array.from({ length: i % 40 }, (_, j) => 32 + ((i * 31 + j * 17) % 9000))),
      );
    for (const label of NODE_LABELS)
      for (const name of names)
        expect(nodeId(label, name)).toBe(
          `${label}:${createHash('sha1').update(name.toLowerCase(), 'utf8').digest('hex').slice(0, 16)}`,
        );
  });

  it.each([
    ['Database:0123456789abcdef', 'Database'],
    ['IAM_Role:0123456789abcdef', 'IAM_Role'],
    ['Database:0123456789ABCDEF', undefined],
    ['Database:0123456789abcde', undefined],
    ['Database:0123456789abcdef0', undefined],
    [':0123456789abcdef', undefined],
    ['Data-base:0123456789abcdef', undefined],
    ['Database 0123456789abcdef', undefined],
    ['', undefined],
  ])('reads the label of %j as %j', (id, label) => {
    expect(idLabel(id)).toBe(label);
  });

  it.each([
    ['Database:0123456789abcdef', true],
    ['VirtualMachine:0123456789abcdef', true],
    ['IAM_Role:0123456789abcdef', true],
    ['Databaze:0123456789abcdef', false], // well formed, not in the vocabulary
    ['database:0123456789abcdef', false], // labels are case-sensitive
    ['Database:0123456789ABCDEF', false],
    ['Database:0123456789abcde', false],
    ['XDatabase:0123456789abcdef', false],
    ['Database0123456789abcdef0', false],
    [':0123456789abcdef', false],
    ['', false],
  ])('knows whether %j names a vocabulary label: %j', (id, known) => {
    expect(hasKnownLabel(id)).toBe(known);
  });

  it('agrees with idLabel and the vocabulary on every label and near misses', () => {
    const hex = '0123456789abcdef';
    for (const label of NODE_LABELS) {
      for (const id of [
        `${label}:${hex}`,
        `${label.slice(1)}:${hex}`,
        `${label}s:${hex}`,
        `${label.toUpperCase()}:${hex}`,
        `${label}:${hex.slice(1)}g`,
      ]) {
        const read = idLabel(id);
        expect(hasKnownLabel(id), id).toBe(read !== undefined && isNodeLabel(read));
      }
    }
  });
});

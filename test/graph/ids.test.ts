import { describe, expect, it } from 'vitest';
import { idLabel, nodeId } from '../../src/graph/ids.js';

describe('node ids', () => {
  it('derives <Label>:<first 16 hex of SHA-1 of the lowercased name>', () => {
    expect(nodeId('Database', 'Orders')).toBe(nodeId('Database', 'orders'));
    expect(nodeId('Database', 'orders')).toMatch(/^Database:[0-9a-f]{16}$/);
    expect(nodeId('IAM_Role', 'admin')).toBe('IAM_Role:d033e22ae348aeb5');
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
});

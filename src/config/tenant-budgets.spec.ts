import { readTenantBudgets } from './tenant-budgets';

describe('TENANT_TOKEN_BUDGETS', () => {
  it('reads tenant:tokens pairs; unset or empty means none', () => {
    const problems: string[] = [];
    expect(readTenantBudgets(undefined, problems).size).toBe(0);
    expect(readTenantBudgets(' ', problems).size).toBe(0);
    expect([...readTenantBudgets('acme:5000, globex:1', problems)]).toEqual([
      ['acme', 5000],
      ['globex', 1],
    ]);
    expect(problems).toEqual([]);
  });

  it('reports every malformed entry', () => {
    const problems: string[] = [];
    readTenantBudgets('acme,:5,x:0,y:1.5,z:-1,w:9,w:8,bad name:3,a:b:c', problems);
    expect(problems).toHaveLength(8);
    expect(problems.join('\n')).toMatch(/"acme" must be tenant:tokens/);
    expect(problems.join('\n')).toMatch(/names tenant "w" twice/);
  });
});

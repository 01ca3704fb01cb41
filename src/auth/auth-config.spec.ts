import { ConfigError, loadConfig } from '../config/config';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authEnabled, keyDigest } from './auth-config';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('auth configuration', () => {
  it('is off without API_KEYS and OIDC_ISSUER', () => {
    const { auth } = loadConfig({});
    expect(auth).toEqual({ apiKeys: [], oidc: null });
    expect(authEnabled(auth)).toBe(false);
  });

  it('reads tenant:key pairs, keeping only digests of the keys', () => {
    const { auth } = loadConfig({ API_KEYS: 'acme:key1-0123456789abcdef, globex:key:with:colons:0123456789 ,acme:key3-0123456789abcdef' });
    expect(auth.apiKeys).toEqual([
      { tenant: 'acme', digest: keyDigest('key1-0123456789abcdef') },
      { tenant: 'globex', digest: keyDigest('key:with:colons:0123456789') },
      { tenant: 'acme', digest: keyDigest('key3-0123456789abcdef') },
    ]);
    expect(JSON.stringify(auth)).not.toContain('key1');
    expect(authEnabled(auth)).toBe(true);
  });

  it('names every bad API_KEYS entry by position without echoing a key', () => {
    const problems = problemsOf({
      API_KEYS:
        'acme:s3cret-0123456789abcd,nocolon-s3cret,:s3cret2-0123456789abcd,acme:,bad tenant:s3cret3-0123456789abcd,acme:two words,globex:s3cret-0123456789abcd,globex:short-s3cret',
    });
    expect(problems).toEqual([
      'API_KEYS entry 2 must be tenant:key',
      'API_KEYS entry 3 has a bad tenant "" (letters, digits, ".", "_", "-"; at most 128)',
      'API_KEYS entry 4 must be tenant:key',
      'API_KEYS entry 5 has a bad tenant "bad tenant" (letters, digits, ".", "_", "-"; at most 128)',
      'API_KEYS entry 6 has a key with spaces or non-ASCII characters',
      'API_KEYS entries 1 and 7 have the same key',
      'API_KEYS entry 8 has a key shorter than 20 characters',
    ]);
    expect(problems.join('\n')).not.toMatch(/s3cret/);
  });

  it('reads API_KEYS_FILE, whose entries may be separated by commas, newlines or both', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'runledger-keys-')), 'api-keys');
    writeFileSync(file, 'acme:key1-0123456789abcdef,\n  globex:key2-0123456789abcdef\r\n\nacme:key3-0123456789abcdef\n');
    expect(loadConfig({ API_KEYS_FILE: file }).auth.apiKeys).toEqual([
      { tenant: 'acme', digest: keyDigest('key1-0123456789abcdef') },
      { tenant: 'globex', digest: keyDigest('key2-0123456789abcdef') },
      { tenant: 'acme', digest: keyDigest('key3-0123456789abcdef') },
    ]);
    writeFileSync(file, 'acme:key1-0123456789abcdef\nglobex:s3cret\n');
    expect(problemsOf({ API_KEYS_FILE: file })).toEqual(['API_KEYS_FILE entry 2 has a key shorter than 20 characters']);
    writeFileSync(file, '\n \n');
    expect(problemsOf({ API_KEYS_FILE: file })).toEqual([`API_KEYS_FILE ${file} holds no tenant:key entries`]);
    expect(problemsOf({ API_KEYS_FILE: `${file}.missing` })).toEqual([`API_KEYS_FILE ${file}.missing cannot be read (ENOENT)`]);
    expect(problemsOf({ API_KEYS_FILE: file, API_KEYS: 'acme:key1-0123456789abcdef' })).toEqual(['API_KEYS and API_KEYS_FILE are both set; set one of them']);
  });

  it('needs OIDC_AUDIENCE and an http(s) OIDC_JWKS_URL with OIDC_ISSUER', () => {
    expect(problemsOf({ OIDC_ISSUER: 'https://id.example' })).toEqual([
      'OIDC_AUDIENCE is required when OIDC_ISSUER is set',
      'OIDC_JWKS_URL is required when OIDC_ISSUER is set',
    ]);
    expect(problemsOf({ OIDC_ISSUER: 'https://id.example', OIDC_AUDIENCE: 'api', OIDC_JWKS_URL: 'ftp://id.example/keys' })).toEqual([
      'OIDC_JWKS_URL must be an http(s) URL (got "ftp://id.example/keys")',
    ]);
  });

  it('refuses OIDC settings without OIDC_ISSUER, which would silently leave OIDC off', () => {
    expect(problemsOf({ OIDC_AUDIENCE: 'api', OIDC_JWKS_URL: 'https://id.example/jwks' })).toEqual([
      'OIDC_AUDIENCE is set but OIDC_ISSUER is not',
      'OIDC_JWKS_URL is set but OIDC_ISSUER is not',
    ]);
  });

  it('reads OIDC with the tenant claim defaulting to `tenant`', () => {
    const env = { OIDC_ISSUER: 'https://id.example', OIDC_AUDIENCE: 'api', OIDC_JWKS_URL: 'https://id.example/jwks' };
    expect(loadConfig(env).auth.oidc).toEqual({ issuer: 'https://id.example', audience: 'api', jwksUrl: 'https://id.example/jwks', tenantClaim: 'tenant' });
    expect(loadConfig({ ...env, OIDC_TENANT_CLAIM: 'org_id' }).auth.oidc?.tenantClaim).toBe('org_id');
    expect(authEnabled(loadConfig(env).auth)).toBe(true);
  });
});

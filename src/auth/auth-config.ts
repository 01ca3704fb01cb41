import { createHash } from 'node:crypto';

/** A configured API key, kept only as its SHA-256 digest so configuration never holds the secret. */
export interface ApiKeyEntry {
  tenant: string;
  digest: Buffer;
}

export interface OidcConfig {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** The claim that names the token's tenant. */
  tenantClaim: string;
}

/** Authentication is on when either is configured (binding §12). */
export interface AuthConfig {
  apiKeys: ApiKeyEntry[];
  oidc: OidcConfig | null;
}

type Env = Record<string, string | undefined>;

export const keyDigest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

// Tenant names end up in stream names and logs: plain, printable and short.
const TENANT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
// A key must travel as a bearer token: printable ASCII without spaces.
const KEY = /^[\x21-\x7e]+$/;

/**
 * `API_KEYS=acme:key1,globex:key2`. Problems name the entry by position and never echo a key,
 * because the message goes to the logs.
 */
function readApiKeys(raw: string | undefined, problems: string[]): ApiKeyEntry[] {
  if (raw === undefined || raw.trim() === '') return [];
  const entries: ApiKeyEntry[] = [];
  const seen = new Map<string, number>();
  raw.split(',').forEach((pair, index) => {
    const position = index + 1;
    const colon = pair.indexOf(':');
    const tenant = colon === -1 ? '' : pair.slice(0, colon).trim();
    const key = colon === -1 ? '' : pair.slice(colon + 1).trim();
    if (colon === -1 || key === '') {
      problems.push(`API_KEYS entry ${position} must be tenant:key`);
      return;
    }
    if (!TENANT.test(tenant)) {
      problems.push(`API_KEYS entry ${position} has a bad tenant "${tenant}" (letters, digits, ".", "_", "-"; at most 128)`);
      return;
    }
    if (!KEY.test(key)) {
      problems.push(`API_KEYS entry ${position} has a key with spaces or non-ASCII characters`);
      return;
    }
    const digest = keyDigest(key).toString('hex');
    const earlier = seen.get(digest);
    if (earlier !== undefined) {
      problems.push(`API_KEYS entries ${earlier} and ${position} have the same key`);
      return;
    }
    seen.set(digest, position);
    entries.push({ tenant, digest: keyDigest(key) });
  });
  return entries;
}

function readOidc(env: Env, problems: string[]): OidcConfig | null {
  const issuer = env.OIDC_ISSUER || null;
  const audience = env.OIDC_AUDIENCE || null;
  const jwksUrl = env.OIDC_JWKS_URL || null;
  const tenantClaim = env.OIDC_TENANT_CLAIM || 'tenant';
  if (!issuer) {
    for (const name of ['OIDC_AUDIENCE', 'OIDC_JWKS_URL', 'OIDC_TENANT_CLAIM']) {
      if (env[name]) problems.push(`${name} is set but OIDC_ISSUER is not`);
    }
    return null;
  }
  if (!audience) problems.push('OIDC_AUDIENCE is required when OIDC_ISSUER is set');
  if (!jwksUrl) problems.push('OIDC_JWKS_URL is required when OIDC_ISSUER is set');
  else if (!isHttpUrl(jwksUrl)) problems.push(`OIDC_JWKS_URL must be an http(s) URL (got "${jwksUrl}")`);
  if (!audience || !jwksUrl) return null;
  return { issuer, audience, jwksUrl, tenantClaim };
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Reads API_KEYS and OIDC_*, adding each problem to `problems` as the other settings do. */
export function readAuthConfig(env: Env, problems: string[]): AuthConfig {
  return { apiKeys: readApiKeys(env.API_KEYS, problems), oidc: readOidc(env, problems) };
}

export const authEnabled = (auth: AuthConfig): boolean => auth.apiKeys.length > 0 || auth.oidc !== null;

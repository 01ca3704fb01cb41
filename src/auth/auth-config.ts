import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { TENANT_NAME_RULE, isTenantName } from './tenant-name';

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

/** Authentication is on when either is configured (docs/api.md#authentication-and-tenants). */
export interface AuthConfig {
  apiKeys: ApiKeyEntry[];
  oidc: OidcConfig | null;
}

type Env = Record<string, string | undefined>;

export const keyDigest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

// A key must travel as a bearer token: printable ASCII without spaces.
const KEY = /^[\x21-\x7e]+$/;
/** Shorter keys can be guessed; 20 random characters are beyond any online attempt. */
export const MIN_KEY_LENGTH = 20;

/**
 * `API_KEYS=acme:4f1c…,globex:9b2e…` (or the same text in API_KEYS_FILE, where newlines may
 * separate entries too). Problems name the entry by position and never echo a key, because the
 * message goes to the logs.
 */
function readApiKeys(source: 'API_KEYS' | 'API_KEYS_FILE', pairs: string[], problems: string[]): ApiKeyEntry[] {
  const entries: ApiKeyEntry[] = [];
  const seen = new Map<string, number>();
  pairs.forEach((pair, index) => {
    const position = index + 1;
    const colon = pair.indexOf(':');
    const tenant = colon === -1 ? '' : pair.slice(0, colon).trim();
    const key = colon === -1 ? '' : pair.slice(colon + 1).trim();
    if (colon === -1 || key === '') {
      problems.push(`${source} entry ${position} must be tenant:key`);
      return;
    }
    if (!isTenantName(tenant)) {
      problems.push(`${source} entry ${position} has a bad tenant "${String(tenant)}" (${TENANT_NAME_RULE})`);
      return;
    }
    if (!KEY.test(key)) {
      problems.push(`${source} entry ${position} has a key with spaces or non-ASCII characters`);
      return;
    }
    if (key.length < MIN_KEY_LENGTH) {
      problems.push(`${source} entry ${position} has a key shorter than ${MIN_KEY_LENGTH} characters`);
      return;
    }
    const digest = keyDigest(key).toString('hex');
    const earlier = seen.get(digest);
    if (earlier !== undefined) {
      problems.push(`${source} entries ${earlier} and ${position} have the same key`);
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

/**
 * The entries of API_KEYS, or of the file API_KEYS_FILE names (a Docker or Kubernetes secret, so
 * keys stay out of the environment that `docker inspect` shows). Never both: one would be ignored.
 */
function keyEntries(env: Env, problems: string[]): { source: 'API_KEYS' | 'API_KEYS_FILE'; pairs: string[] } | null {
  const inline = env.API_KEYS !== undefined && env.API_KEYS.trim() !== '';
  const file = env.API_KEYS_FILE || null;
  if (inline && file) {
    problems.push('API_KEYS and API_KEYS_FILE are both set; set one of them');
    return null;
  }
  if (inline) return { source: 'API_KEYS', pairs: env.API_KEYS!.split(',') };
  if (!file) return null;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(`API_KEYS_FILE ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return null;
  }
  const pairs = text.split(/[,\r\n]/).filter((pair) => pair.trim() !== '');
  if (pairs.length === 0) problems.push(`API_KEYS_FILE ${file} holds no tenant:key entries`);
  return { source: 'API_KEYS_FILE', pairs };
}

/** Reads API_KEYS (or API_KEYS_FILE) and OIDC_*, adding each problem to `problems` as the other settings do. */
export function readAuthConfig(env: Env, problems: string[]): AuthConfig {
  const keys = keyEntries(env, problems);
  return { apiKeys: keys ? readApiKeys(keys.source, keys.pairs, problems) : [], oidc: readOidc(env, problems) };
}

export const authEnabled = (auth: AuthConfig): boolean => auth.apiKeys.length > 0 || auth.oidc !== null;

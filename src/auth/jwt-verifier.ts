import { Logger } from '@nestjs/common';
import type { Logger as Pino } from 'pino';
import { linesOn } from '../observability/request-context';
import { createLocalJWKSet, createRemoteJWKSet, errors, JWTVerifyGetKey, jwtVerify, type JWSHeaderParameters, type FlattenedJWSInput } from 'jose';
import { OidcConfig } from './auth-config';
import { TENANT_NAME_RULE, isTenantName } from './tenant-name';

/** Why a token was refused; the hook turns it into 401 UNAUTHENTICATED. */
export class InvalidTokenError extends Error {}

/** The issuer's signing keys could not be fetched and none are cached: the token may be fine (503). */
export class SigningKeysUnavailableError extends Error {}

// Keys in a JWKS are public keys, so only asymmetric algorithms can verify; `none` never does.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
// Clocks of the issuer and of this host differ by a little.
const CLOCK_TOLERANCE_S = 5;
/** After a failed fetch of the key set, requests wait this long before one tries again. */
export const KEYS_RETRY_AFTER_S = 5;

/** Failures of key lookup that are a verdict on the token, not on the key server. */
const isVerdict = (error: unknown) => error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys;

export interface JwtVerifierOptions {
  /** How long fetched keys count as fresh before they are fetched again (jose's default, 10 min). */
  cacheMaxAgeMs?: number;
  /** Time allowed for one fetch of the key set. */
  fetchTimeoutMs?: number;
}

/**
 * OIDC bearer tokens (JWT, RFC 9068 style) verified with jose against the issuer's JWKS. Keys are
 * fetched on demand and cached; when a refetch fails, keys fetched earlier still verify tokens
 * they signed, so an issuer outage only refuses tokens whose key was never seen.
 */
export class JwtVerifier {
  private readonly remote: ReturnType<typeof createRemoteJWKSet>;
  private readonly getKey: JWTVerifyGetKey;
  /** Until then the key server is left alone: an outage must not turn every request into a fetch. */
  private quietUntil = 0;
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly config: OidcConfig,
    options: JwtVerifierOptions = {},
  ) {
    this.remote = createRemoteJWKSet(new URL(config.jwksUrl), {
      cacheMaxAge: options.cacheMaxAgeMs,
      timeoutDuration: options.fetchTimeoutMs ?? 5000,
    });
    this.getKey = (header, token) => this.key(header, token);
  }

  /** The token's tenant; throws InvalidTokenError or SigningKeysUnavailableError. */
  async tenantOf(token: string, log?: Pino): Promise<string> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, log ? (header, input) => this.key(header, input, log) : this.getKey, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_S,
      }));
    } catch (error) {
      if (error instanceof SigningKeysUnavailableError) throw error;
      throw new InvalidTokenError(reasonOf(error));
    }
    const tenant = payload[this.config.tenantClaim];
    if (typeof tenant !== 'string' || tenant === '') {
      throw new InvalidTokenError(`bearer token has no string "${this.config.tenantClaim}" claim`);
    }
    // The same rule as API_KEYS' tenants: the name reaches stream names and logs. The value is
    // not echoed, as it may be anything the issuer let a user put there.
    if (!isTenantName(tenant)) {
      throw new InvalidTokenError(`bearer token's "${this.config.tenantClaim}" claim is not a valid tenant name (${TENANT_NAME_RULE})`);
    }
    return tenant;
  }

  /** `log`: the request's logger, so that an outage's line carries the id of the request it refused. */
  private async key(header: JWSHeaderParameters, token: FlattenedJWSInput, log?: Pino) {
    let failure: unknown = new Error('an earlier fetch failed moments ago');
    if (Date.now() >= this.quietUntil) {
      try {
        return await this.remote(header, token);
      } catch (error) {
        if (isVerdict(error)) throw error;
        failure = error;
        this.quietUntil = Date.now() + KEYS_RETRY_AFTER_S * 1000;
        (log ? linesOn(log, 'Auth') : this.logger).warn(`fetching the signing keys from ${this.config.jwksUrl} failed: ${(error as Error).message}`);
      }
    }
    // The remote set keeps the last keys it fetched; a token signed by one of them is still good.
    const cached = this.remote.jwks();
    if (cached) {
      try {
        return await createLocalJWKSet(cached)(header, token);
      } catch (error) {
        if (!isVerdict(error)) throw error;
      }
    }
    throw new SigningKeysUnavailableError(`the issuer's signing keys could not be fetched: ${(failure as Error).message}`);
  }
}

/** A client-facing reason that says what was wrong without echoing the token. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'bearer token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'bearer token is not valid yet';
    if (error.claim === 'iss') return 'bearer token is from another issuer';
    if (error.claim === 'aud') return 'bearer token is for another audience';
    return `bearer token has a missing or invalid "${error.claim}" claim`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return 'bearer token algorithm is not accepted';
  if (error instanceof errors.JWKSNoMatchingKey) return 'bearer token was signed by an unknown key';
  return 'bearer token is not valid';
}

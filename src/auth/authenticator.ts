import type { Logger as Pino } from 'pino';
import { RateLimitedError, ServiceUnavailableError, UnauthenticatedError } from '../common/errors/request-errors';
import { ApiKeys } from './api-keys';
import { AuthConfig } from './auth-config';
import { FailedAuthBudget } from './failed-auth-budget';
import { InvalidTokenError, JwtVerifier, JwtVerifierOptions, KEYS_RETRY_AFTER_S, SigningKeysUnavailableError } from './jwt-verifier';

/**
 * RFC 6750 `Bearer <token>` with the scheme in any case. The token may be any printable ASCII
 * without spaces, which is what API_KEYS allows for a key (a JWT is a subset).
 */
const BEARER = /^bearer +([\x21-\x7e]+) *$/i;

const unauthenticated = (message: string, tokenRejected = true) => new UnauthenticatedError(message, tokenRejected);

const rateLimited = (retryAfterS: number) =>
  new RateLimitedError(`too many failed authentications from this address; retry in ${retryAfterS} seconds`, retryAfterS);

/** The bearer token of an `Authorization` header value, or the refusal it earns. */
function bearerToken(authorization: string | string[] | undefined): string | UnauthenticatedError {
  if (authorization === undefined || authorization === '') return unauthenticated('a bearer token is required', false);
  const match = typeof authorization === 'string' ? BEARER.exec(authorization) : null;
  return match ? match[1] : unauthenticated('the Authorization header must be "Bearer <token>"');
}

/**
 * Who a request acts for (docs/api.md#authentication-and-tenants): a bearer token that equals a configured API key is that
 * key's tenant; any other token is verified as an OIDC JWT when OIDC is configured. Messages
 * never contain the token.
 *
 * Failures are counted per client address (AUTH_FAILURES_PER_MINUTE). The key comparison comes
 * first, as it is cheap, so a valid key passes even from an address over its budget; an address
 * over it is refused with 429 before any JWT is verified, the costly part an attacker could
 * otherwise make the server repeat.
 */
export class Authenticator {
  private readonly keys: ApiKeys;
  private readonly jwt: JwtVerifier | null;
  private readonly failures: FailedAuthBudget;

  constructor(config: AuthConfig, options: JwtVerifierOptions & { failuresPerMinute?: number } = {}) {
    this.keys = new ApiKeys(config.apiKeys);
    this.jwt = config.oidc ? new JwtVerifier(config.oidc, options) : null;
    this.failures = new FailedAuthBudget(options.failuresPerMinute ?? 0);
  }

  get enabled(): boolean {
    return this.keys.size > 0 || this.jwt !== null;
  }

  /** The tenant for an `Authorization` header value sent from `address` (`log`: the request's logger); throws UnauthenticatedError, RateLimitedError (this address failed too often) or ServiceUnavailableError (the keys cannot be fetched). */
  async tenantOf(authorization: string | string[] | undefined, address: string, log?: Pino): Promise<string> {
    const token = bearerToken(authorization);
    const tenant = typeof token === 'string' ? this.keys.tenantOf(token) : null;
    if (tenant !== null) return tenant;
    const wait = this.failures.retryAfter(address);
    if (wait !== null) throw rateLimited(wait);
    try {
      if (typeof token !== 'string') throw token;
      return await this.verify(token, log);
    } catch (error) {
      if (error instanceof UnauthenticatedError) this.failures.record(address);
      throw error;
    }
  }

  private async verify(token: string, log?: Pino): Promise<string> {
    if (!this.jwt) throw unauthenticated('bearer token is not valid');
    try {
      return await this.jwt.tenantOf(token, log);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw unauthenticated(error.message);
      if (error instanceof SigningKeysUnavailableError) {
        throw new ServiceUnavailableError('the identity provider cannot be reached to verify the bearer token; retry shortly', KEYS_RETRY_AFTER_S);
      }
      throw error;
    }
  }
}

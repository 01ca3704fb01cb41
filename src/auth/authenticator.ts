import { ApiError } from '../common/api-error';
import { ApiKeys } from './api-keys';
import { AuthConfig } from './auth-config';
import { InvalidTokenError, JwtVerifier, JwtVerifierOptions, KEYS_RETRY_AFTER_S, SigningKeysUnavailableError } from './jwt-verifier';

/**
 * RFC 6750 `Bearer <token>` with the scheme in any case. The token may be any printable ASCII
 * without spaces, which is what API_KEYS allows for a key (a JWT is a subset).
 */
const BEARER = /^bearer +([\x21-\x7e]+) *$/i;

/** A refusal with the headers that go with it (RFC 6750 `WWW-Authenticate`, `Retry-After`). */
export class AuthFailure extends ApiError {
  constructor(
    code: 'UNAUTHENTICATED' | 'SERVICE_UNAVAILABLE',
    message: string,
    readonly headers: Record<string, string>,
  ) {
    super(code, message);
  }
}

const unauthenticated = (message: string, tokenError = true) =>
  new AuthFailure('UNAUTHENTICATED', message, {
    'www-authenticate': tokenError ? 'Bearer realm="runledger", error="invalid_token"' : 'Bearer realm="runledger"',
  });

/**
 * Who a request acts for (binding §12): a bearer token that equals a configured API key is that
 * key's tenant; any other token is verified as an OIDC JWT when OIDC is configured. Messages
 * never contain the token.
 */
export class Authenticator {
  private readonly keys: ApiKeys;
  private readonly jwt: JwtVerifier | null;

  constructor(config: AuthConfig, jwtOptions: JwtVerifierOptions = {}) {
    this.keys = new ApiKeys(config.apiKeys);
    this.jwt = config.oidc ? new JwtVerifier(config.oidc, jwtOptions) : null;
  }

  get enabled(): boolean {
    return this.keys.size > 0 || this.jwt !== null;
  }

  /** The tenant for an `Authorization` header value; throws AuthFailure. */
  async tenantOf(authorization: string | string[] | undefined): Promise<string> {
    if (authorization === undefined || authorization === '') throw unauthenticated('a bearer token is required', false);
    const match = typeof authorization === 'string' ? BEARER.exec(authorization) : null;
    if (!match) throw unauthenticated('the Authorization header must be "Bearer <token>"');
    const token = match[1];
    const tenant = this.keys.tenantOf(token);
    if (tenant !== null) return tenant;
    if (!this.jwt) throw unauthenticated('bearer token is not valid');
    try {
      return await this.jwt.tenantOf(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw unauthenticated(error.message);
      if (error instanceof SigningKeysUnavailableError) {
        throw new AuthFailure('SERVICE_UNAVAILABLE', 'the identity provider cannot be reached to verify the bearer token; retry shortly', {
          'retry-after': String(KEYS_RETRY_AFTER_S),
        });
      }
      throw error;
    }
  }
}

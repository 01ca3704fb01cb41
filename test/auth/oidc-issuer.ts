import { exportJWK, generateKeyPair, JWTPayload, KeyLike, SignJWT } from 'jose';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export const ISSUER = 'https://issuer.runledger.test';
export const AUDIENCE = 'runledger-api';

export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: KeyLike;
  publicJwk: Record<string, unknown>;
}

export async function signingKey(kid: string, alg: SigningKey['alg'] = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/**
 * A stand-in identity provider: a JWKS endpoint on node:http serving the public keys it is given
 * (or failing on demand), and a signer for tokens. `fetches` counts key-set requests.
 */
export class OidcIssuer {
  fetches = 0;
  /** 'ok' serves the keys; a number answers that status instead. */
  mode: 'ok' | number = 'ok';
  private server!: Server;

  constructor(public keys: SigningKey[]) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      this.fetches++;
      if (request.url !== '/jwks' || this.mode !== 'ok') {
        response.writeHead(this.mode === 'ok' ? 404 : this.mode).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: this.keys.map((k) => k.publicJwk) }));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get jwksUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/jwks`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** A token valid for an hour unless `build` changes it. */
  sign(claims: JWTPayload, key: SigningKey = this.keys[0], build: (jwt: SignJWT) => SignJWT = (jwt) => jwt): Promise<string> {
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('1h');
    return build(jwt).sign(key.privateKey);
  }
}

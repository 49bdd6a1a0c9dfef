import { randomBytes } from "node:crypto";
import { compactVerify, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK, type JWTPayload } from "jose";

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

/** The mock's RS256 signing key: signs ID and access tokens, published in the JWKS. */
export class SigningKey {
  private constructor(
    private readonly pair: KeyPair,
    readonly kid: string,
    private readonly publicJwk: JWK,
  ) {}

  static async create(): Promise<SigningKey> {
    const pair = await generateKeyPair("RS256", { extractable: true });
    const kid = `mock-siwc-${randomBytes(6).toString("hex")}`;
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg: "RS256", use: "sig" };
    return new SigningKey(pair, kid, publicJwk);
  }

  jwks(): { keys: JWK[] } {
    return { keys: [{ ...this.publicJwk }] };
  }

  sign(payload: JWTPayload): Promise<string> {
    return new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: this.kid, typ: "JWT" }).sign(this.pair.privateKey);
  }

  /** The payload when the signature is ours and `exp` is after `now`; null otherwise. */
  async verify(token: string, now: Date): Promise<JWTPayload | null> {
    try {
      const { payload } = await jwtVerify(token, this.pair.publicKey, { algorithms: ["RS256"], currentDate: now });
      return payload;
    } catch {
      return null;
    }
  }

  /** The payload when the signature is ours, whatever the claims say (an expired ID token still works as a hint). */
  async signedPayload(token: string): Promise<JWTPayload | null> {
    try {
      const { payload } = await compactVerify(token, this.pair.publicKey, { algorithms: ["RS256"] });
      return JSON.parse(new TextDecoder().decode(payload)) as JWTPayload;
    } catch {
      return null;
    }
  }
}

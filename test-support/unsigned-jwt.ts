/** Test helper: builds an unsigned JWT (header.payload.signature) around a payload. */
export function makeUnsignedJwt(payload: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${encode({ alg: "none", typ: "JWT" })}.${encode(payload)}.${Buffer.from("not-signed").toString("base64url")}`;
}

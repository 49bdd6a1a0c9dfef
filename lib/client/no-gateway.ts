/**
 * Stands in for `@ai-sdk/gateway` in the browser build (next.config.ts, `turbopack.resolveAlias`).
 * The AI SDK's core imports the Vercel AI Gateway as its default provider, which it calls only for
 * a model given by name. This app always passes a provider's model (lib/client/provider-proxy.ts),
 * so in the browser the gateway (with its OIDC client and the Buffer polyfill that comes with it,
 * about 20 KB gzipped) would download with the chat screen and never run. The server keeps the real
 * package. Each name here is one the AI SDK imports (no-gateway.test.ts reads its import list).
 */

const NOT_HERE = "The AI Gateway is not in this app's browser code: pass a provider's model, not a model name.";

function notHere(): never {
  throw new Error(NOT_HERE);
}

/** No error comes from a gateway that is not here. */
export class GatewayError extends Error {
  static isInstance(): boolean {
    return false;
  }
}

export class GatewayAuthenticationError extends GatewayError {}

export const createGateway = notHere;

/** The default provider: calling it, or asking it for any kind of model, throws. */
export const gateway = new Proxy(notHere, {
  get: (target, property) => Reflect.get(target, property) ?? notHere,
});

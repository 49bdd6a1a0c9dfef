import "server-only";
import { ProviderAuthError, isRefreshTokenInvalid } from "@/lib/upstream/errors";
import type { ServerContext } from "../context";
import { capabilitiesOf } from "./capabilities";
import { isAuthenticated } from "./record";
import type { SessionManager } from "./manager";

export interface ExportedTokens {
  accessToken: string;
  idToken: string;
  accountId: string;
  expiresAt: number;
  refreshToken?: string;
}

/**
 * Raw tokens for server code that must call the provider itself. Off unless the handler was built
 * with dangerouslyAllowTokenExport (and dangerouslyAllowRefreshTokenExport for the refresh token:
 * refresh tokens are single-use, so a caller that refreshes on its own kills the login).
 */
export function createTokenExport(ctx: ServerContext, manager: SessionManager) {
  return async function dangerouslyGetTokens(
    request: Request,
    options: { includeRefreshToken?: boolean } = {},
  ): Promise<ExportedTokens> {
    if (!ctx.options.dangerouslyAllowTokenExport) {
      throw new ProviderAuthError("token_export_disabled", "Token export needs dangerouslyAllowTokenExport");
    }
    if (options.includeRefreshToken && !ctx.options.dangerouslyAllowRefreshTokenExport) {
      throw new ProviderAuthError(
        "refresh_token_export_disabled",
        "Refresh-token export needs dangerouslyAllowRefreshTokenExport",
      );
    }
    const session = await manager.read(request);
    if (!isAuthenticated(session)) {
      throw new ProviderAuthError("not_authenticated", "This request has no authenticated session");
    }
    if (!capabilitiesOf(session.record).tokenExport) {
      // Sign in with ChatGPT's terms allow its tokens for the connected application only.
      throw new ProviderAuthError(
        "token_export_not_available_with_siwc",
        "Tokens of a Sign in with ChatGPT session are for this app only and are never exported",
      );
    }
    let record;
    try {
      record = await manager.freshTokens(session);
    } catch (error) {
      if (isRefreshTokenInvalid(error)) {
        throw new ProviderAuthError("not_authenticated", "The session ended: its refresh token is no longer valid");
      }
      throw error;
    }
    const { tokens, account } = record;
    return {
      accessToken: tokens.accessToken,
      idToken: tokens.idToken,
      accountId: account.accountId,
      expiresAt: tokens.expiresAt,
      ...(options.includeRefreshToken ? { refreshToken: tokens.refreshToken } : {}),
    };
  };
}

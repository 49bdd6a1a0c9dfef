import { randomBytes } from "node:crypto";
import type { MockContext, RouteCall } from "./context";
import { sendJson, sendText } from "./http-util";
import { usageHeaders } from "./usage-headers";

const USAGE_WINDOW_RESET_SECONDS = 2 * 3600 + 17 * 60;

function rayId(): string {
  return `${randomBytes(8).toString("hex")}-FRA`;
}

/** The edge's managed challenge, as a datacenter client sees it instead of the API. */
export function sendCloudflareChallenge(call: RouteCall): void {
  const ray = rayId();
  const html = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta http-equiv="X-UA-Compatible" content="IE=Edge">
<meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1">
<style>*{box-sizing:border-box;margin:0;padding:0}html{line-height:1.15;color:#313131;font-family:system-ui,sans-serif}</style>
</head><body><div class="main-wrapper" role="main"><div class="main-content">
<h1 class="zone-name-title h1">chatgpt.com</h1>
<h2 id="challenge-running" class="h2">Checking if the site connection is secure</h2>
<noscript><div id="challenge-error-title"><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></div></noscript>
<div id="challenge-body-text" class="core-msg spacer">chatgpt.com needs to review the security of your connection before proceeding.</div>
</div></div>
<script>(function(){window._cf_chl_opt={cvId: '3',cZone: 'chatgpt.com',cType: 'managed',cRay: '${ray.split("-")[0]}',cH: '${randomBytes(24).toString("base64url")}',cUPMDTk: "\\/backend-api\\/codex?__cf_chl_tk=${randomBytes(16).toString("base64url")}",cFPWv: 'b',cITimeS: '${Math.floor(Date.now() / 1000)}'};var cpo=document.createElement('script');cpo.src='/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=${ray.split("-")[0]}';window._cf_chl_opt.cOgUHash=location.hash;document.getElementsByTagName('head')[0].appendChild(cpo);}());</script>
<div class="footer" role="contentinfo"><div class="footer-inner"><div class="clearfix diagnostic-wrapper"><div class="ray-id">Ray ID: <code>${ray.split("-")[0]}</code></div></div><div class="text-center" id="footer-text">Performance &amp; security by Cloudflare</div></div></div>
</body></html>`;
  sendText(call.response, 403, "text/html; charset=UTF-8", html, {
    "cf-mitigated": "challenge",
    "cf-ray": ray,
    server: "cloudflare",
    "cross-origin-opener-policy": "same-origin",
    "x-frame-options": "SAMEORIGIN",
  });
}

/** The edge's own outage page (a 503 before any authentication), as an origin that is down looks from outside. */
export function sendEdgeUnavailable(call: RouteCall): void {
  const html =
    "<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center>" +
    "<hr><center>cloudflare</center></body></html>";
  sendText(call.response, 503, "text/html", html, { server: "cloudflare", "cf-ray": rayId() });
}

export function sendServerError(call: RouteCall): void {
  sendJson(call.response, 500, {
    error: {
      message: "An error occurred while processing your request. Please try again.",
      type: "server_error",
      code: "internal_error",
      param: null,
    },
  });
}

/** A validation error that quotes the person's text back, as some provider errors do. */
export function sendInputEchoed(call: RouteCall, text: string): void {
  sendJson(call.response, 400, {
    error: {
      message: `Invalid 'input[0].content[0].text': the text "${text}" could not be processed.`,
      type: "invalid_request_error",
      param: "input",
      code: "invalid_value",
    },
  });
}

/** The voice backend refusing a session field it used to accept, in plain text (seen in August). */
export function sendSessionFieldRefused(call: RouteCall, session: Record<string, unknown>): void {
  // The Codex call sends instructions; the web transports do not, so they are refused their voice.
  const [field, value] =
    typeof session.instructions === "string" ? ["instructions", session.instructions] : ["voice", String(session.voice ?? "")];
  const message = `Unsupported session field "${field}": this voice no longer accepts it (got "${value}").`;
  sendText(call.response, 400, "text/plain; charset=utf-8", message);
}

/** The voice backend refusing the model field itself, as it did from 2026-08-22 (openai/codex#40140). */
export function sendModelFieldRefused(call: RouteCall): void {
  sendJson(call.response, 400, { detail: "Field `session.model` is not allowed for this Codex realtime session" });
}

export function sendUsageLimit(context: MockContext, call: RouteCall, accountId: string, plan: string): void {
  sendJson(
    call.response,
    429,
    {
      error: {
        type: "usage_limit_reached",
        message: "The usage limit has been reached",
        plan_type: plan,
        resets_at: Math.floor(Date.now() / 1000) + USAGE_WINDOW_RESET_SECONDS,
        resets_in_seconds: USAGE_WINDOW_RESET_SECONDS,
      },
    },
    usageHeaders(context, accountId, { exhausted: true }),
  );
}

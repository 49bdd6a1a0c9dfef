import "server-only";
type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

export type RouteHandler = (request: Request, params: Readonly<Record<string, string>>) => Promise<Response>;

/**
 * One path of the table. `pattern` is relative to basePath; a `:name` segment matches any one
 * segment (for the realtime routes, e.g. `/realtime/app-server/:id/events`).
 */
export interface RouteDefinition {
  pattern: string;
  methods: Partial<Record<Exclude<HttpMethod, "OPTIONS">, RouteHandler>>;
}

type RouteMatch =
  | { kind: "not_found" }
  | {
      kind: "found";
      pattern: string;
      /** The request's method, upper case. */
      method: string;
      params: Record<string, string>;
      /** Undefined when the path is known but the method is not (405), or for OPTIONS. */
      handler: RouteHandler | undefined;
      /** Value of the `Allow` header: the route's methods plus OPTIONS (CORS preflight). */
      allow: string;
    };

function matchSegments(pattern: string[], path: string[]): Record<string, string> | null {
  if (pattern.length !== path.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index += 1) {
    const expected = pattern[index]!;
    const actual = path[index]!;
    if (expected.startsWith(":")) {
      if (actual === "") return null;
      try {
        params[expected.slice(1)] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (expected !== actual) {
      return null;
    }
  }
  return params;
}

/** Routes a request by its pathname below basePath. Exact matches only: no trailing-slash aliases. */
export function createRouter(basePath: string, routes: readonly RouteDefinition[]) {
  const table = routes.map((route) => ({
    route,
    segments: route.pattern.split("/").slice(1),
    allow: [...Object.keys(route.methods), "OPTIONS"].join(", "),
  }));

  return {
    match(request: Request): RouteMatch {
      const { pathname } = new URL(request.url);
      if (!pathname.startsWith(`${basePath}/`)) return { kind: "not_found" };
      const segments = pathname.slice(basePath.length).split("/").slice(1);
      for (const { route, segments: pattern, allow } of table) {
        const params = matchSegments(pattern, segments);
        if (params === null) continue;
        const method = request.method.toUpperCase() as HttpMethod;
        const handler = method === "OPTIONS" ? undefined : route.methods[method];
        return { kind: "found", pattern: route.pattern, method, params, handler, allow };
      }
      return { kind: "not_found" };
    },
  };
}

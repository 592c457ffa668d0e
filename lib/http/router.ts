/** Matches a path against the route table: the method picks among patterns, static segments win, 405's `Allow` is their union. */
import type { Method, RouteDef, Surface } from "./route";

interface Compiled {
  route: RouteDef;
  segments: string[];
  staticCount: number;
}

export type MatchResult =
  | { kind: "found"; route: RouteDef; params: Record<string, string> }
  | { kind: "method_not_allowed"; allow: string[] }
  | { kind: "not_found" };

const isParam = (segment: string) => segment.startsWith("{") && segment.endsWith("}");

export class Router {
  private readonly compiled: Compiled[];

  constructor(routes: readonly RouteDef[], surface: Surface) {
    this.compiled = routes
      .filter((r) => r.surfaces.includes(surface))
      .map((route) => {
        const segments = route.path.split("/").filter(Boolean);
        return { route, segments, staticCount: segments.filter((s) => !isParam(s)).length };
      })
      .sort((a, b) => b.staticCount - a.staticCount);
  }

  match(method: string, path: string): MatchResult {
    // Empty segments are kept: `/posts//report` is the report endpoint with an empty code,
    // which the code's schema refuses with 400 (not another endpoint, not a 404).
    const parts = path.replace(/^\/+/, "").split("/");
    if (parts.length === 1 && parts[0] === "") parts.pop();
    let decoded: string[];
    try {
      decoded = parts.map((p) => decodeURIComponent(p));
    } catch {
      return { kind: "not_found" };
    }
    const allow = new Set<string>();
    let found: { route: RouteDef; params: Record<string, string> } | undefined;
    for (const c of this.compiled) {
      const params = matchSegments(c.segments, decoded);
      if (!params) continue;
      allow.add(c.route.method);
      if (!found && (c.route.method === method || (method === "HEAD" && c.route.method === "GET"))) {
        found = { route: c.route, params };
      }
    }
    if (found) return { kind: "found", ...found };
    if (allow.size === 0) return { kind: "not_found" };
    if (allow.has("GET")) allow.add("HEAD");
    allow.add("OPTIONS");
    return { kind: "method_not_allowed", allow: [...allow].sort(methodOrder) };
  }

  /** The routes declared at a path, any method (for OPTIONS's route headers). */
  routesAt(path: string): RouteDef[] {
    const parts = path.replace(/^\/+/, "").split("/");
    if (parts.length === 1 && parts[0] === "") parts.pop();
    let decoded: string[];
    try {
      decoded = parts.map((p) => decodeURIComponent(p));
    } catch {
      return [];
    }
    return this.compiled.filter((c) => matchSegments(c.segments, decoded)).map((c) => c.route);
  }

  allowed(path: string): string[] {
    const r = this.match("\u0000", path);
    return r.kind === "method_not_allowed" ? r.allow : [];
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (isParam(p)) {
      params[p.slice(1, -1)] = parts[i];
    } else if (p !== parts[i]) return null;
  }
  return params;
}

const ORDER: (Method | "HEAD" | "OPTIONS")[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
function methodOrder(a: string, b: string): number {
  return ORDER.indexOf(a as Method) - ORDER.indexOf(b as Method);
}

export function routePath(url: Pick<URL, "pathname">, basePath: string): string {
  let path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  return path;
}

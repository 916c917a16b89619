/** The one wrapper every /api/v1 route handler goes through: auth, body limits, error mapping. */
import type { Db } from "@/lib/db/client";
import { getDb } from "@/lib/db/client";
import type { z } from "zod";
import { authenticate, requireScope, type Principal } from "@/lib/auth/principal";
import { hasScope, type Scope } from "@/lib/auth/roles";
import { getProjectFor, type ProjectRow } from "@/lib/projects/service";
import { BadRequest, Forbidden, parseOrThrow } from "@/lib/errors";
import { toErrorResponse } from "@/lib/api/errors";
import { searchParamsOf } from "./contracts";
import { readJsonBody } from "@/lib/http/body";

export { assertDeclaredSize, maxBodyBytes, readJsonBody } from "@/lib/http/body";

/**
 * What a route declares about its callers, so a reader sees from the route file alone who may call it:
 * the scope it needs and where the project whose limit applies comes from.
 * - `slug`: the `[slug]` path parameter; the project is loaded (404 when unknown) and handed to the handler;
 * - `entity`: the handler's service loads an entity (proposal, rollout, dispatch, import) and checks its project;
 * - `global`: no project: a key limited to one project may only read.
 */
export interface RouteGuard<B = unknown, Q = unknown> {
  scope: Scope;
  project: "slug" | "entity" | "global";
  /** The JSON body's schema: parsed (422 naming the field) before the handler runs. */
  body?: z.ZodType<B>;
  /** The query string's schema: parsed (400 naming the parameter) before the handler runs. */
  query?: z.ZodType<Q>;
}

export interface RouteContext<P, B = undefined, Q = undefined, Proj = ProjectRow | undefined> {
  req: Request;
  params: P;
  db: Db;
  principal: Principal;
  /** The project named by the path (`project: "slug"` guards). */
  project: Proj;
  /** The parsed body, when the guard names a body schema. */
  body: B;
  /** The parsed query, when the guard names a query schema. */
  query: Q;
}

type Handler<P, B, Q, Proj> = (ctx: RouteContext<P, B, Q, Proj>) => Promise<Response | unknown>;

/** A route handler as Next.js calls it, carrying the guard it was declared with (listed by the route-guard test). */
export type GuardedHandler<P> = ((req: Request, ctx: { params: Promise<P> }) => Promise<Response>) & { guard: RouteGuard };

/**
 * Wrap an authenticated JSON handler behind its declared guard: authenticate, check the scope (and the
 * project limit), parse the body and query; returns `Response`s as they are, anything else as 200 JSON.
 */
export function apiRoute<P = Record<string, never>, B = undefined, Q = undefined>(
  guard: RouteGuard<B, Q> & { project: "slug" },
  handler: Handler<P, B, Q, ProjectRow>,
): GuardedHandler<P>;
export function apiRoute<P = Record<string, never>, B = undefined, Q = undefined>(
  guard: RouteGuard<B, Q> & { project: "entity" | "global" },
  handler: Handler<P, B, Q, undefined>,
): GuardedHandler<P>;
export function apiRoute<P, B, Q>(guard: RouteGuard<B, Q>, handler: Handler<P, B, Q, never>): GuardedHandler<P> {
  const run = async (req: Request, ctx: { params: Promise<P> }): Promise<Response> => {
    try {
      const params = ((await ctx?.params) ?? {}) as P;
      assertStorableUrl(req, params);
      const db = getDb();
      const principal = await authenticate(db, req);
      let project: ProjectRow | undefined;
      if (guard.project === "slug") {
        project = await getProjectFor(db, (params as { slug?: string }).slug ?? "", principal);
        requireScope(principal, guard.scope, project.id);
      } else if (guard.project === "global") {
        requireScope(principal, guard.scope);
      } else if (!hasScope(principal.role, guard.scope)) {
        // the service checks the entity's project once it has loaded it
        throw new Forbidden(`Your role (${principal.role}) may not do this (needs ${guard.scope}).`);
      }
      const body = (guard.body ? parseOrThrow(guard.body, await readJsonBody(req)) : undefined) as B;
      const query = (guard.query ? parseOrThrow(guard.query, searchParamsOf(req), "query", 400) : undefined) as Q;
      const out = await handler({ req, params, db, principal, project: project as never, body, query });
      return out instanceof Response ? out : Response.json(out);
    } catch (err) {
      return toErrorResponse(err);
    }
  };
  return Object.assign(run, { guard: guard as RouteGuard });
}

/**
 * Path and query values reach SQL as text, which cannot hold a NUL character: such a request is
 * a 400 naming the parameter, before any handler (or query) runs.
 */
function assertStorableUrl(req: Request, params: unknown): void {
  const bad: { path: string; message: string }[] = [];
  for (const [name, value] of Object.entries((params ?? {}) as Record<string, unknown>)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === "string" && v.includes("\0"))) bad.push({ path: name, message: "holds a NUL character (%00)" });
  }
  for (const [name, value] of new URL(req.url).searchParams) {
    if (name.includes("\0") || value.includes("\0"))
      bad.push({ path: `query.${name.replace(/\0/g, "\\0")}`, message: "holds a NUL character (%00)" });
  }
  if (bad.length) throw new BadRequest(`${bad[0].path} ${bad[0].message}: NUL characters are not accepted in paths or query strings.`, bad);
}

/** Parse a positive integer path or query parameter, or throw 400 naming it. */
export function intParam(value: string | null | undefined, name: string): number {
  const n = Number(value);
  if (value === null || value === undefined || value === "" || !Number.isInteger(n) || n < 0) {
    throw new BadRequest(`${name} must be a non-negative integer (got ${JSON.stringify(value)}).`, [
      { path: name, message: "must be a non-negative integer" },
    ]);
  }
  return n;
}

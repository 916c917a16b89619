/** Server-component guards: who is signed in, and where to send someone who is not. */
import { cookies } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { DomainError } from "@/lib/errors";
import { getDb } from "@/lib/db/client";
import { principalFromSession, SESSION_COOKIE, type Principal } from "@/lib/auth/principal";
import { hasScope, type Scope } from "@/lib/auth/roles";
import { needsSetup } from "@/lib/auth/users";
import { getProjectFor } from "@/lib/projects/service";

/** The signed-in user, or null. */
export async function currentUser(): Promise<Principal | null> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  return principalFromSession(getDb(), token);
}

/** The signed-in user; otherwise a redirect to the first-run page or to sign-in. */
export async function requireUser(next?: string): Promise<Principal> {
  const user = await currentUser();
  if (user) return user;
  if (await needsSetup(getDb())) redirect("/setup");
  redirect(next ? `/signin?next=${encodeURIComponent(next)}` : "/signin");
}

/** The signed-in user holding `scope`; otherwise a redirect to the "not allowed" page. */
export async function requireUserWith(scope: Scope, next?: string): Promise<Principal> {
  const user = await requireUser(next);
  if (!hasScope(user.role, scope)) redirect(`/forbidden?need=${encodeURIComponent(scope)}`);
  return user;
}

/** Await a lookup for a page; a domain error (unknown project, generation, family) renders the 404 page. */
export async function orNotFound<T>(lookup: Promise<T>): Promise<T> {
  try {
    return await lookup;
  } catch (err) {
    if (err instanceof DomainError) notFound();
    throw err;
  }
}

/**
 * What every project page starts with, its permission check: the signed-in user holding `scope`
 * (reading by default), the database, and the project they may read (getProjectFor checks the
 * scope against a key limited to one project); an unknown or hidden project renders the 404 page.
 */
export async function projectPage(slug: string, next: string, scope: Scope = "projects:read") {
  const user = await requireUserWith(scope, next);
  const db = getDb();
  const project = await orNotFound(getProjectFor(db, slug, user));
  return { user, db, project };
}

/** Browser sign-in flows as route handlers (not under /api/v1: they set the session cookie). */
import { getDb } from "@/lib/db/client";
import { PEER_HEADER } from "@/lib/http/guard";
import { parseOrThrow } from "@/lib/errors";
import { toErrorResponse } from "@/lib/api/errors";
import { readJsonBody } from "@/lib/http/body";
import { assertSameOrigin, readCookie, SESSION_COOKIE } from "@/lib/auth/principal";
import { clearedSessionCookie, sessionCookie } from "@/lib/auth/cookies";
import { createFirstAdmin, openSession, setupSchema, signIn, signInSchema, signOut } from "@/lib/auth/users";

/** POST /api/auth/setup: the first admin account (loopback only, only while none exists). */
export async function setupHandler(req: Request): Promise<Response> {
  try {
    assertSameOrigin(req);
    const db = getDb();
    const input = parseOrThrow(setupSchema, await readJsonBody(req));
    const userId = await createFirstAdmin(db, input, req.headers);
    const session = await openSession(db, userId);
    return Response.json({ ok: true }, { status: 201, headers: { "Set-Cookie": sessionCookie(session.token, session.expiresAt, req) } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** POST /api/auth/signin. */
export async function signInHandler(req: Request): Promise<Response> {
  try {
    assertSameOrigin(req);
    const db = getDb();
    const input = parseOrThrow(signInSchema, await readJsonBody(req));
    const session = await signIn(db, input, req.headers.get(PEER_HEADER) || "unknown");
    return Response.json({ ok: true }, { headers: { "Set-Cookie": sessionCookie(session.token, session.expiresAt, req) } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** POST /api/auth/signout. */
export async function signOutHandler(req: Request): Promise<Response> {
  try {
    assertSameOrigin(req);
    const token = readCookie(req.headers.get("cookie"), SESSION_COOKIE);
    if (token) await signOut(getDb(), token);
    return Response.json({ ok: true }, { headers: { "Set-Cookie": clearedSessionCookie() } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

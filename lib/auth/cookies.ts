/** The session cookie: httpOnly, SameSite=Lax, Secure when served over https. */
import { SESSION_COOKIE } from "./principal";

/** A Set-Cookie value that stores the session token. */
export function sessionCookie(token: string, expiresAt: Date, req: Request): string {
  const secure = new URL(req.url).protocol === "https:" || req.headers.get("x-forwarded-proto") === "https";
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Lax; Expires=${expiresAt.toUTCString()}${secure ? "; Secure" : ""}`;
}

/** A Set-Cookie value that clears the session. */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}

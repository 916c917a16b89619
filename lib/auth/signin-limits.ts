/**
 * Sign-in rate limit per account and per address, kept in Postgres so every web process sees the
 * same counts. Each attempt is recorded before the password is checked (so parallel guesses count
 * too) and removed again when it succeeds; what stays are failures.
 */
import { and, desc, eq, gt, lt, sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import { signinAttempts } from "@/lib/db/schema";
import { loadSettings } from "@/lib/config/env";
import { DomainError } from "@/lib/errors";

export interface SigninLimits {
  maxFailures: number;
  windowMs: number;
}

/** 429 with the seconds until the next attempt is allowed (sent as Retry-After). */
export class TooManySignins extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, "too_many_requests", `Too many failed sign-ins: try again in ${Math.ceil(retryAfterSeconds / 60)} minute(s).`);
    this.headers = { "Retry-After": String(retryAfterSeconds) };
  }
}

/** The limits from ENVFORGE_SIGNIN_MAX_FAILURES and ENVFORGE_SIGNIN_WINDOW_MINUTES. */
export function signinLimits(): SigninLimits {
  const s = loadSettings();
  return { maxFailures: s.ENVFORGE_SIGNIN_MAX_FAILURES, windowMs: s.ENVFORGE_SIGNIN_WINDOW_MINUTES * 60_000 };
}

// advisory lock namespaces: one lock per account and one per address serialise count-then-insert
const ACCOUNT_LOCK = 0x5e51;
const ADDRESS_LOCK = 0x5e52;

/**
 * Record an attempt for `email` from `address`, or throw TooManySignins when either already has
 * `maxFailures` in the window. Returns the attempt's id, to forget on success.
 */
export async function reserveSigninAttempt(db: Db, email: string, address: string, limits: SigninLimits = signinLimits()): Promise<number> {
  return db.transaction(async (tx) => {
    // always account first, then address: two attempts never wait on each other in a cycle
    await tx.execute(sql`select pg_advisory_xact_lock(${ACCOUNT_LOCK}, hashtext(${email}))`);
    await tx.execute(sql`select pg_advisory_xact_lock(${ADDRESS_LOCK}, hashtext(${address}))`);
    const since = new Date(Date.now() - limits.windowMs);
    let retryAt = 0;
    for (const key of [eq(signinAttempts.email, email), eq(signinAttempts.address, address)]) {
      // the max-th newest failure: once it leaves the window, one more attempt is allowed
      const [edge] = await tx
        .select({ at: signinAttempts.at })
        .from(signinAttempts)
        .where(and(key, gt(signinAttempts.at, since)))
        .orderBy(desc(signinAttempts.at))
        .offset(limits.maxFailures - 1)
        .limit(1);
      if (edge) retryAt = Math.max(retryAt, edge.at.getTime() + limits.windowMs);
    }
    if (retryAt) throw new TooManySignins(Math.max(1, Math.ceil((retryAt - Date.now()) / 1000)));
    // keep the table small: rows that left the window count for nothing
    await tx.delete(signinAttempts).where(lt(signinAttempts.at, since));
    const [row] = await tx.insert(signinAttempts).values({ email, address }).returning({ id: signinAttempts.id });
    return row.id;
  });
}

/** A successful sign-in: the account's failures are forgotten (an address's failures against other accounts stay). */
export async function forgetSigninFailures(db: Db, email: string): Promise<void> {
  await db.delete(signinAttempts).where(eq(signinAttempts.email, email));
}

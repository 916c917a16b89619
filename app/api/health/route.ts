import { sql } from "drizzle-orm";
import { getDb } from "@/lib/db/client";

export const dynamic = "force-dynamic";

/** Liveness and database reachability; needs no key. */
export async function GET() {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      getDb().execute(sql`select 1`),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), 3000))),
    ]);
    return Response.json({ status: "ok", db: "ok" });
  } catch {
    return Response.json({ status: "degraded", db: "unreachable" }, { status: 503 });
  } finally {
    clearTimeout(timer);
  }
}

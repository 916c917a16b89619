/**
 * Bad bytes get a 4xx for their line, not a 500 for the batch (issue 11, point 5): NUL characters
 * (Postgres text and jsonb refuse them), lone surrogates, numbers out of range or not finite,
 * impossible dates and JSON nested deeper than 64 are rejected with the line and field; the valid
 * lines of the same body are stored. NUL in a path or query string is a 400 naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { call } from "./http";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import * as projectsRoute from "@/app/api/v1/projects/route";
import * as generationsRoute from "@/app/api/v1/projects/[slug]/generations/route";
import * as rolloutsRoute from "@/app/api/v1/projects/[slug]/rollouts/route";
import { lake } from "./configs";

const ADMIN = "test-bootstrap-token-badbytes-012";
let db: Awaited<ReturnType<typeof freshDatabase>>;

const post = (slug: string, rawBody: string, contentType = "application/x-ndjson") =>
  call(rolloutsRoute.POST as never, "POST", `/api/v1/projects/${slug}/rollouts`, { token: ADMIN, rawBody, contentType, params: { slug } });
const config = lake(1);
const base = (id: string) => ({ externalId: id, environmentKey: "e1", policy: "p", reward: 1 });
const nested = (depth: number) => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { x: v };
  return v;
};

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, ADMIN);
  await call(projectsRoute.POST as never, "POST", "/api/v1/projects", {
    token: ADMIN,
    body: { slug: "bb", name: "B", family: "frozenlake-mapf" },
  });
  await call(generationsRoute.POST as never, "POST", "/api/v1/projects/bb/generations", {
    token: ADMIN,
    params: { slug: "bb" },
    body: { environments: [{ key: "e1", config }] },
  });
});
afterAll(async () => {
  await db?.drop();
});

describe("POST /rollouts with bad bytes", () => {
  it("rejects each bad line with its number and field and stores the valid lines of the same body", async () => {
    const lines = [
      JSON.stringify(base("ok-1")),
      JSON.stringify({ ...base("nul-policy"), policy: "p\u0000q" }),
      JSON.stringify({ ...base("nul-meta"), metadata: { a: { b: ["fine", "bad\u0000"] } } }),
      JSON.stringify({ ...base("nul-key"), metadata: { "k\u0000": 1 } }),
      JSON.stringify({ ...base("nul-verifier"), verifierOutput: "tests\u0000passed" }),
      // JSON.stringify escapes a lone surrogate as \ud800: valid JSON, but jsonb refuses it
      JSON.stringify({ ...base("surrogate"), trajectory: [{ role: "user", content: "x\ud800y" }] }),
      JSON.stringify({ ...base("tokens"), inputTokens: 10_000_000_000 }),
      `{"externalId":"inf","environmentKey":"e1","policy":"p","reward":1e400}`,
      `{"externalId":"inf-meta","environmentKey":"e1","policy":"p","reward":1,"metadata":{"score":-1e999}}`,
      JSON.stringify({ ...base("deep"), metadata: nested(100) }),
      JSON.stringify({ ...base("generation"), generation: 3_000_000_000 }),
      JSON.stringify({ ...base("year0"), startedAt: "0000-01-01T00:00:00Z" }),
      `{"externalId":"very-deep","environmentKey":"e1","policy":"p","metadata":${'{"x":'.repeat(20_000)}1${"}".repeat(20_000)}}`,
      JSON.stringify(base("ok-2")),
    ].join("\n");
    const r = await post("bb", lines);
    expect(r.status).toBe(200);
    expect(r.json.accepted).toBe(2);
    const byLine = Object.fromEntries(r.json.rejected.map((x: { line: number; message: string }) => [x.line, x.message]));
    expect(Object.keys(byLine).map(Number)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(byLine[2]).toMatch(/^policy: holds a NUL character/);
    expect(byLine[3]).toMatch(/^metadata\.a\.b\.1: holds a NUL character/);
    expect(byLine[4]).toMatch(/^metadata\.k\\u0000: key holds a NUL character/);
    expect(byLine[5]).toMatch(/^verifierOutput: holds a NUL character/);
    expect(byLine[6]).toMatch(/^trajectory\.0\.content: holds an unpaired UTF-16 surrogate/);
    expect(byLine[7]).toMatch(/^inputTokens: must be at most 2147483647/);
    expect(byLine[8]).toMatch(/^reward: is a number out of range/);
    expect(byLine[9]).toMatch(/^metadata\.score: is a number out of range/);
    expect(byLine[10]).toMatch(/^metadata(\.x){63}: is nested deeper than 64 levels/);
    expect(byLine[11]).toMatch(/^generation: must be at most 2147483647/);
    expect(byLine[12]).toMatch(/^startedAt: year 0000 does not exist/);
    expect(byLine[13]).toMatch(/nested deeper than 64 levels/);
    const stored = await db.pool.query("select external_id from rollouts order by external_id");
    expect(stored.rows.map((x) => x.external_id)).toEqual(["ok-1", "ok-2"]);
  });

  it("does the same for the elements of a JSON array body", async () => {
    const body = `[${JSON.stringify(base("arr-ok"))}, ${JSON.stringify({ ...base("arr-nul"), error: { type: "E", message: "a\u0000b" } })}]`;
    const r = await post("bb", body, "application/json");
    expect(r.status).toBe(200);
    expect(r.json.accepted).toBe(1);
    expect(r.json.rejected).toEqual([
      expect.objectContaining({
        line: 2,
        code: "invalid_rollout",
        message: expect.stringMatching(/^error\.message: holds a NUL character/),
      }),
    ]);
  });

  it("stores payloads byte for byte: backslashes, tabs, line breaks and non-ASCII survive the payload write", async () => {
    const awkward = 'a\\b\tc\nd\r\ne \\N \\t é 日本 😀 "q" \u0001';
    const trajectory = [{ role: "tool", content: awkward, toolCallId: "x\\y" }];
    const metadata = { path: "C:\\tmp\\x", note: awkward };
    const r = await post("bb", JSON.stringify({ ...base("awkward"), trajectory, verifierOutput: awkward, metadata }));
    expect(r.json.accepted).toBe(1);
    const [row] = (
      await db.pool.query(
        "select p.trajectory, p.verifier_output, p.metadata from rollout_payloads p join rollouts r on r.id = p.rollout_id where r.external_id = 'awkward'",
      )
    ).rows;
    expect(row.verifier_output).toBe(awkward);
    expect(row.trajectory).toEqual(trajectory);
    expect(row.metadata).toEqual(metadata);
  });

  it("answers 400 naming the parameter for a NUL in a path or query string, before any query runs", async () => {
    const q = await call(rolloutsRoute.GET as never, "GET", "/api/v1/projects/bb/rollouts?policy=a%00b", {
      token: ADMIN,
      params: { slug: "bb" },
    });
    expect(q.status).toBe(400);
    expect(q.json.error.details[0]).toMatchObject({ path: "query.policy" });
    const p = await call(rolloutsRoute.GET as never, "GET", "/api/v1/projects/b%00b/rollouts", {
      token: ADMIN,
      params: { slug: "b\u0000b" },
    });
    expect(p.status).toBe(400);
    expect(p.json.error.details[0]).toMatchObject({ path: "slug" });
  });

  it("answers 400, not 500, for a number the database cannot hold in a query", async () => {
    const r = await call(rolloutsRoute.GET as never, "GET", "/api/v1/projects/bb/rollouts?generation=99999999999", {
      token: ADMIN,
      params: { slug: "bb" },
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });
});

/**
 * The explorer's API on a real Postgres: saved views (private to their owner, filters checked, replaced
 * by name, deleted only by their owner) and streamed Parquet downloads of the rollouts list's current
 * filter, a generation's environment table and a run comparison, checked by tests/parquet_check.py
 * (standard-library Python: PAR1 at both ends, the footer's row count and its row groups') and read
 * back with hyparquet; environment tables and comparisons also as CSV.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { indexPendingRollouts } from "@/lib/rollouts/search-index";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parquetReadObjects } from "hyparquet";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { lake } from "./configs";
import { startApi, stopApi, clientWithRole, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-explorer-001";
let db: TestDb;
let server: TestServer;
let client: EnvForgeClient;
let other: EnvForgeClient;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ef-parquet-"));

const ROLLOUTS = 2345;

const download = async (p: string) => {
  const res = await fetch(server.url + p, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
};
/** The Python check's verdict on a downloaded file. */
const pythonCheck = (bytes: Buffer, name: string) => {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, bytes);
  return JSON.parse(execFileSync("python3", [path.join(import.meta.dirname, "parquet_check.py"), file], { encoding: "utf8" })) as {
    magic: boolean;
    numRows: number;
    rowGroupRows: number;
  };
};
const readRows = (bytes: Buffer) =>
  parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer }) as Promise<
    Record<string, unknown>[]
  >;
const statusOf = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e) => (e instanceof ApiError ? e.status : Promise.reject(e)),
  );

beforeAll(async () => {
  ({ db, server, admin: client } = await startApi(TOKEN));
  other = await clientWithRole(db, server, "viewer", { name: "someone-else" });
  await createProjectWith(
    client,
    { slug: "pq" },
    { environments: Array.from({ length: 12 }, (_, i) => ({ key: `e${i}`, config: lake(i + 1) })) },
  );
  const lines = Array.from({ length: ROLLOUTS }, (_, i) => ({
    externalId: `r${i}`,
    environmentKey: `e${i % 12}`,
    policy: i % 2 ? "new" : "old",
    reward: (i % 5) / 4 > 1 ? 1 : (i % 5) / 4,
    turns: i % 9,
    inputTokens: 100 + i,
    startedAt: "2026-01-01T00:00:00Z",
    finishedAt: `2026-01-01T00:0${i % 10}:00Z`,
    trajectory: [{ role: "user", content: i % 3 ? "walk to the goal" : 'avoid the =HOLE, then "quote"' }],
  }));
  const summary = await client.request<{ accepted: number }>("POST", "/api/v1/projects/pq/rollouts", { json: lines });
  expect(summary.accepted).toBe(ROLLOUTS);
  await indexPendingRollouts(db.db);
}, 120_000);
afterAll(async () => {
  await stopApi({ server, db });
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("saved views", () => {
  type View = { id: number; name: string; query: string };
  it("are saved with known filters only, replaced by name, listed to their owner alone, deleted by their owner", async () => {
    const saved = await client.request<View>("POST", "/api/v1/projects/pq/views", {
      json: { name: "hard ones", query: "?q=hole&maxReward=0.25&cursor=12&limit=5&sort=-turns" },
    });
    expect(saved.query).toBe("maxReward=0.25&q=hole&sort=-turns");
    const again = await client.request<View>("POST", "/api/v1/projects/pq/views", { json: { name: "hard ones", query: "success=false" } });
    expect(again.id).toBe(saved.id);
    const mine = await client.request<{ views: View[] }>("GET", "/api/v1/projects/pq/views");
    expect(mine.views.map((v) => [v.name, v.query])).toEqual([["hard ones", "success=false"]]);
    expect((await other.request<{ views: View[] }>("GET", "/api/v1/projects/pq/views")).views).toEqual([]);
    expect(await statusOf(other.request("DELETE", `/api/v1/projects/pq/views/${saved.id}`))).toBe(404);
    await client.request("DELETE", `/api/v1/projects/pq/views/${saved.id}`);
    expect((await client.request<{ views: View[] }>("GET", "/api/v1/projects/pq/views")).views).toEqual([]);
  });

  it("refuse unknown filters and bad filter values with 400, a bad body (NUL, control characters, extra keys) with 422", async () => {
    const cases: [object, number][] = [
      [{ name: "x", query: "colour=red" }, 400],
      [{ name: "x", query: "minTurns=-3" }, 400],
      [{ name: "x", query: "sort=random" }, 400],
      [{ name: "x", query: "q=a%00b" }, 400],
      [{ name: "x", query: "a\u0000b" }, 422],
      [{ name: "bad\u0001name", query: "" }, 422],
      [{ name: "", query: "" }, 422],
      [{ name: "x", query: "", extra: 1 }, 422],
    ];
    for (const [json, status] of cases) {
      const error = await client.request("POST", "/api/v1/projects/pq/views", { json }).catch((e) => e);
      expect((error as ApiError).status, JSON.stringify(json)).toBe(status);
    }
    expect((await client.request<{ views: unknown[] }>("GET", "/api/v1/projects/pq/views")).views).toEqual([]);
  });
});

describe("Parquet downloads", () => {
  it("of the rollouts list's current filter: every matching row over several row groups, PAR1 at both ends", async () => {
    const all = await download("/api/v1/projects/pq/rollouts?format=parquet");
    expect(all.status).toBe(200);
    expect(all.type).toContain("parquet");
    const check = pythonCheck(all.bytes, "all.parquet");
    expect(check).toMatchObject({ magic: true, numRows: ROLLOUTS, rowGroupRows: ROLLOUTS });
    const rows = await readRows(all.bytes);
    expect(rows).toHaveLength(ROLLOUTS);
    expect(new Set(rows.map((r) => r.externalId)).size).toBe(ROLLOUTS);
    const r7 = rows.find((r) => r.externalId === "r7")!;
    expect(r7).toMatchObject({ environmentKey: "e7", policy: "new", reward: 0.5, turns: 7n, inputTokens: 107n, durationSeconds: 420 });

    const filtered = await download("/api/v1/projects/pq/rollouts?format=parquet&q=hole&policy=old&minTurns=3");
    const expected = Array.from({ length: ROLLOUTS }, (_, i) => i).filter((i) => i % 3 === 0 && i % 2 === 0 && i % 9 >= 3);
    expect(pythonCheck(filtered.bytes, "filtered.parquet")).toMatchObject({ magic: true, numRows: expected.length });
    expect((await readRows(filtered.bytes)).map((r) => r.externalId).sort()).toEqual(expected.map((i) => `r${i}`).sort());

    const none = await download("/api/v1/projects/pq/rollouts?format=parquet&q=zyxwvu");
    expect(pythonCheck(none.bytes, "none.parquet")).toMatchObject({ magic: true, numRows: 0 });
    expect((await download("/api/v1/projects/pq/rollouts?format=parquet&minTurns=-1")).status).toBe(400);
  });

  it("of a generation's environment table, with its filters and order, as Parquet and CSV", async () => {
    const pq = await download("/api/v1/projects/pq/generations/0/environments?format=parquet&sort=key&limit=5");
    expect(pythonCheck(pq.bytes, "envs.parquet")).toMatchObject({ magic: true, numRows: 12 });
    const rows = await readRows(pq.bytes);
    expect(rows.map((r) => r.key)).toEqual(Array.from({ length: 12 }, (_, i) => `e${i}`).sort());
    expect(rows.reduce((n, r) => n + Number(r.rollouts), 0)).toBe(ROLLOUTS);
    const filtered = await download("/api/v1/projects/pq/generations/0/environments?format=parquet&q=e1");
    expect((await readRows(filtered.bytes)).map((r) => r.key).sort()).toEqual(["e1", "e10", "e11"]);
    const csv = await download("/api/v1/projects/pq/generations/0/environments?format=csv");
    const lines = csv.bytes.toString("utf8").trim().split("\r\n");
    expect(lines[0].startsWith("key,")).toBe(true);
    expect(lines).toHaveLength(13);
  });

  it("of a run comparison, one row an environment, the same figures as the JSON", async () => {
    const json = await client.request<{ environments: { key: string; delta: number }[] }>(
      "GET",
      "/api/v1/projects/pq/compare?a=0:old&b=0:new",
    );
    const pq = await download("/api/v1/projects/pq/compare?a=0:old&b=0:new&format=parquet");
    expect(pythonCheck(pq.bytes, "compare.parquet")).toMatchObject({ magic: true, numRows: json.environments.length });
    const rows = await readRows(pq.bytes);
    expect(rows.map((r) => [r.environment, r.delta])).toEqual(json.environments.map((e) => [e.key, e.delta]));
  });
});

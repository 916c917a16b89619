/**
 * Search across rollouts over HTTP on a real Postgres, on the shared Harbor job tmax-9b (fails under CI
 * without ../shared/fixtures): `q` finds exactly the trials whose trajectory or verifier output holds a
 * word (read straight from the trial folders), each hit with a snippet marking it; filters and keyset
 * pages combine with it; the new filters (behaviour, cluster, status, tests, tokens, duration) and
 * orders agree with the rows they return; hostile queries get results or a 400, never a 500.
 */
import fs from "node:fs";
import { sql } from "drizzle-orm";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { startApiServer } from "./api-server";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { importHarbor } from "@/cli/commands/import";
import { indexPendingRollouts } from "@/lib/rollouts/search-index";
import { listRollouts, SEARCH_WALK } from "@/lib/rollouts/list";
import type { ProjectRow } from "@/lib/projects/service";

const TOKEN = "test-bootstrap-token-search-0001";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: Awaited<ReturnType<typeof startApiServer>>;
let client: EnvForgeClient;

type Snippet = { text: string; highlights: [number, number][] };
type Item = {
  id: number;
  trialName: string | null;
  success: boolean;
  status: string;
  reward: number | null;
  turns: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  testsPassed: number | null;
  testsFailed: number | null;
  behaviours: string[] | null;
  failureCategory: string | null;
  durationSeconds: number | null;
  snippet?: Snippet | null;
};
type Page = { items: Item[]; nextCursor: string | null };

const BASE = "/api/v1/projects/tb2/rollouts";
const all = async (query: string, limit = 1000) => {
  const out: Item[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await client.request<Page>(
      "GET",
      `${BASE}?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
};
const statusOf = (p: string) =>
  client.request("GET", p).then(
    () => 200,
    (e) => (e instanceof ApiError ? e.status : Promise.reject(e)),
  );

/** Every string in a JSON value, joined: what a reader of the trajectory sees. */
function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => stringsOf(x, out));
  else if (v && typeof v === "object") Object.values(v).forEach((x) => stringsOf(x, out));
  return out;
}

const fixtures = fixturesDir();
const jobDir = fixtures ? path.join(fixtures, "harbor-tb2", "tmax-9b", "terminal-bench-2-0") : "";
/** trial folder name -> lower-cased trajectory strings and verifier output, from the files themselves */
const texts = new Map<string, string>();
const trialsHolding = (word: string) =>
  [...texts]
    .filter(([, t]) => t.includes(word.toLowerCase()))
    .map(([name]) => name)
    .sort();
const names = (items: Item[]) => items.map((r) => r.trialName ?? "").sort();

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, TOKEN);
  server = await startApiServer();
  client = new EnvForgeClient({ server: server.url, token: TOKEN });
  if (!fixtures) return;
  const result = await importHarbor(client, jobDir, { project: "tb2", create: true, generation: 0, quiet: true });
  expect(result.summary.rejected).toEqual([]);
  // search documents are written by the indexer, off the ingest path (ADR 0007)
  await indexPendingRollouts(db.db);
  for (const entry of fs.readdirSync(jobDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !fs.existsSync(path.join(jobDir, entry.name, "result.json"))) continue;
    const read = (f: string) =>
      fs.existsSync(path.join(jobDir, entry.name, f)) ? fs.readFileSync(path.join(jobDir, entry.name, f), "utf8") : "";
    const trajectory = read("agent/trajectory.json");
    const parts = trajectory ? stringsOf(JSON.parse(trajectory)) : [];
    texts.set(entry.name, [...parts, read("verifier/test-stdout.txt")].join("\n").toLowerCase());
  }
}, 300_000);
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe.skipIf(!fixtures)("search over the Harbor job tmax-9b (skipped locally without ../shared/fixtures; fails under CI)", () => {
  it.each(["pgmpy", "Segmentation fault", "learned_dag"])(
    "q=%s finds exactly the trials whose text holds it, each with a marked snippet",
    async (word) => {
      const expected = trialsHolding(word);
      expect(expected.length, `fixture check: some trials hold ${word}`).toBeGreaterThan(0);
      expect(expected.length, `fixture check: not every trial holds ${word}`).toBeLessThan(texts.size);
      const hits = await all(`q=${encodeURIComponent(word)}`);
      expect(names(hits)).toEqual(expected);
      for (const hit of hits) {
        expect(hit.snippet, `snippet of ${hit.trialName}`).toBeTruthy();
        const marked = hit.snippet!.highlights.map(([a, b]) => hit.snippet!.text.slice(a, b).toLowerCase());
        expect(marked.length, `highlights in ${hit.trialName}: ${hit.snippet!.text}`).toBeGreaterThan(0);
        // a full-text hit marks each word of the phrase; a substring hit marks the phrase itself
        for (const m of marked)
          expect(
            word
              .toLowerCase()
              .split(" ")
              .some((w) => m.includes(w) || w.startsWith(m)),
          ).toBe(true);
      }
    },
  );

  it("a word no trial holds finds nothing; q combines with filters; keyset pages of a search cover each hit once", async () => {
    expect(trialsHolding("zyxwvutsrq")).toEqual([]);
    expect(await all("q=zyxwvutsrq")).toEqual([]);
    const word = "Segmentation fault";
    const hits = await all(`q=${encodeURIComponent(word)}`);
    const failed = await all(`q=${encodeURIComponent(word)}&success=false`);
    expect(names(failed)).toEqual(names(hits.filter((h) => !h.success)));
    const paged = await all(`q=${encodeURIComponent(word)}&sort=-reward`, 2);
    expect(new Set(paged.map((r) => r.id)).size).toBe(paged.length);
    expect(names(paged)).toEqual(names(hits));
    const byTurns = await all(`q=${encodeURIComponent(word)}&sort=turns`, 3);
    expect(names(byTurns)).toEqual(names(hits));
    for (let i = 1; i < byTurns.length; i++) expect((byTurns[i - 1].turns ?? -1) <= (byTurns[i].turns ?? -1)).toBe(true);
  });

  it("every walk length gives the same pages: the walk in order, the second walk, the index fallback", async () => {
    const [project] = (await db.db.execute(sql`select * from projects where slug = 'tb2'`)).rows as unknown as ProjectRow[];
    /** every hit of a query, page by page, with the walk limited to `walk` candidates */
    const pages = async (query: Record<string, string>, walk: number) => {
      const ids: number[][] = [];
      let cursor: string | null = null;
      do {
        const page: { items: { id: number }[]; nextCursor: string | null } = await listRollouts(
          db.db,
          project,
          { ...query, ...(cursor ? { cursor } : {}) },
          { searchWalk: walk },
        );
        ids.push(page.items.map((r) => r.id));
        cursor = page.nextCursor;
      } while (cursor);
      return ids;
    };
    // a word in most trials (a page fills on the first walk), one in a few percent (the second walk), one in a
    // handful (the indexes), with orders and a filter; small pages so each query spans several
    const queries: Record<string, string>[] = [
      { q: "error", limit: "100" },
      { q: "Segmentation fault", limit: "7", sort: "-reward" },
      { q: "pgmpy", limit: "2", sort: "turns" },
      { q: "learned_dag", limit: "2", sort: "oldest" },
      { q: "pytest", limit: "60", success: "false", sort: "tokens" },
    ];
    for (const query of queries) {
      const reference = await pages(query, SEARCH_WALK);
      const flat = reference.flat();
      expect(flat.length, `${JSON.stringify(query)} spans pages`).toBeGreaterThan(Number(query.limit));
      expect(new Set(flat).size).toBe(flat.length);
      for (const walk of [1, 3, 20]) expect(await pages(query, walk), `${JSON.stringify(query)} walking ${walk}`).toEqual(reference);
    }
    const everyHit = await all(`q=${encodeURIComponent("Segmentation fault")}&sort=-reward`, 7);
    expect((await pages({ q: "Segmentation fault", limit: "7", sort: "-reward" }, 1)).flat()).toEqual(everyHit.map((r) => r.id));
  }, 300_000);

  it("the new filters keep exactly the rows their rule keeps", async () => {
    const everything = await all("sort=oldest");
    expect(everything.length).toBe(texts.size);
    const check = async (query: string, rule: (r: Item) => boolean) => {
      const expected = everything.filter(rule).map((r) => r.id);
      expect(expected.length, `${query} keeps some`).toBeGreaterThan(0);
      expect(expected.length, `${query} drops some`).toBeLessThan(everything.length);
      expect(
        (await all(`${query}&sort=oldest`)).map((r) => r.id),
        query,
      ).toEqual(expected);
    };
    const tokens = (r: Item) => (r.inputTokens ?? 0) + (r.outputTokens ?? 0);
    const medianTokens = everything.map(tokens).sort((a, b) => a - b)[everything.length >> 1];
    await check(`minTokens=${medianTokens}`, (r) => tokens(r) >= medianTokens);
    await check(`maxTokens=${medianTokens}`, (r) => tokens(r) <= medianTokens);
    await check("minDuration=600", (r) => r.durationSeconds !== null && r.durationSeconds >= 600);
    await check("maxDuration=300", (r) => r.durationSeconds !== null && r.durationSeconds <= 300);
    await check("minTestsPassed=1&maxTestsFailed=0", (r) => (r.testsPassed ?? -1) >= 1 && r.testsFailed !== null && r.testsFailed === 0);
    await check("status=errored", (r) => r.status === "errored");
    const behaviour = everything.find((r) => r.behaviours?.length)!.behaviours![0];
    await check(`behaviour=${behaviour}`, (r) => !!r.behaviours?.includes(behaviour));
    type Failures = { clusters: { id: string; count: number }[] };
    const { clusters } = await client.request<Failures>("GET", "/api/v1/projects/tb2/generations/0/failures");
    const cluster = clusters.find((c) => c.count > 1)!;
    expect((await all(`cluster=${cluster.id}`)).length).toBe(cluster.count);
    expect(await all("cluster=0000000000000000")).toEqual([]);
  });

  it.each(["tokens", "-tokens", "duration", "-duration"])("sorts by %s with keyset pages that cover every rollout once", async (sort) => {
    const items = await all(`sort=${sort}`, 37);
    expect(items.length).toBe(texts.size);
    expect(new Set(items.map((r) => r.id)).size).toBe(items.length);
    const keyOf = (r: Item) => (sort.endsWith("tokens") ? (r.inputTokens ?? 0) + (r.outputTokens ?? 0) : (r.durationSeconds ?? -1));
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [keyOf(items[i - 1]), keyOf(items[i])];
      expect(sort.startsWith("-") ? a >= b : a <= b, `${sort} at ${i}`).toBe(true);
    }
  });

  it("hostile queries: tsquery syntax, wildcards and quotes answer 200; NUL bytes and 10k characters 400 naming q", async () => {
    for (const q of [
      "a & b | !c",
      "(((",
      "foo:*",
      "<->",
      "'",
      '"unclosed',
      "\\",
      "-",
      "or",
      "%",
      "_",
      "100%_done",
      "a\u0001b\u0002",
      "🙂",
    ]) {
      expect(await statusOf(`${BASE}?q=${encodeURIComponent(q)}`), JSON.stringify(q)).toBe(200);
    }
    // % and _ are literal characters, not wildcards
    for (const q of ["%%%", "_t_"]) expect(names(await all(`q=${encodeURIComponent(q)}`)), q).toEqual(trialsHolding(q));
    for (const q of ["a\u0000b", "x".repeat(10_000)]) {
      const error = await client.request("GET", `${BASE}?q=${encodeURIComponent(q)}`).catch((e) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect(JSON.stringify((error as ApiError).body)).toContain("q");
    }
  });
});

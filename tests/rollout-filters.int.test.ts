/**
 * The rollouts list's filters and orders over HTTP on a real Postgres: turn and reward ranges, label,
 * sort by reward or turns with keyset pages that neither skip nor repeat a rollout, bad parameters 400;
 * generation, policy and environment (compared by id inside the project) alone and with a search, at every walk length.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { lake } from "./configs";
import { startApi, stopApi, createProjectWith, type TestDb, type TestServer } from "./api-harness";
import { listRollouts } from "@/lib/rollouts/list";
import { projectBySlug } from "@/lib/projects/repository";
import { indexPendingRollouts } from "@/lib/rollouts/search-index";

const TOKEN = "test-bootstrap-token-filters-0001";
let db: TestDb;
let server: TestServer;
let client: EnvForgeClient;
type Item = { id: number; externalId: string; reward: number | null; turns: number | null };
type Page = { items: Item[]; nextCursor: string | null };
// 40 rollouts: rewards 0, 0.25, 0.5, 0.75 or none (ties on purpose), turns i % 7 or none
const DATA = Array.from({ length: 40 }, (_, i) => ({
  externalId: `r${i}`,
  reward: i % 5 === 4 ? undefined : (i % 4) / 4,
  turns: i % 6 === 5 ? undefined : i % 7,
}));

const all = async (query: string, limit: number) => {
  const out: Item[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await client.request<Page>(
      "GET",
      `/api/v1/projects/flt/rollouts?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
};
const status = (p: string) =>
  client.request("GET", p).then(
    () => 200,
    (e) => (e instanceof ApiError ? e.status : Promise.reject(e)),
  );

beforeAll(async () => {
  ({ db, server, admin: client } = await startApi(TOKEN));
  await createProjectWith(client, { slug: "flt" }, { environments: [{ key: "e1", config: lake(1) }] });
  await client.request("POST", "/api/v1/projects/flt/rollouts", { json: DATA.map((d) => ({ ...d, environmentKey: "e1", policy: "p" })) });
});
afterAll(async () => {
  await stopApi({ server, db });
});

describe("rollouts list filters and orders", () => {
  it("filters by turn and reward ranges", async () => {
    const ids = (items: Item[]) => items.map((r) => r.externalId).sort();
    const expected = (f: (d: (typeof DATA)[number]) => boolean) =>
      DATA.filter(f)
        .map((d) => d.externalId)
        .sort();
    expect(ids(await all("minTurns=2&maxTurns=4", 100))).toEqual(expected((d) => d.turns !== undefined && d.turns >= 2 && d.turns <= 4));
    expect(ids(await all("minReward=0.5", 100))).toEqual(expected((d) => d.reward !== undefined && d.reward >= 0.5));
    expect(ids(await all("maxReward=0.25&minTurns=1", 100))).toEqual(
      expected((d) => d.reward !== undefined && d.reward <= 0.25 && d.turns !== undefined && d.turns >= 1),
    );
  });

  it.each(["reward", "-reward", "turns", "-turns", "oldest", "newest"])(
    "sorts by %s with keyset pages that cover every rollout once",
    async (sort) => {
      const items = await all(`sort=${sort}`, 3);
      expect(items).toHaveLength(DATA.length);
      expect(new Set(items.map((r) => r.id)).size).toBe(DATA.length);
      const field = sort.replace("-", "") as "reward" | "turns";
      const keyOf = (r: Item) => (sort === "oldest" || sort === "newest" ? r.id : (r[field] ?? -Infinity));
      const descending = sort.startsWith("-") || sort === "newest";
      for (let i = 1; i < items.length; i++) {
        const [a, b] = [keyOf(items[i - 1]), keyOf(items[i])];
        if (descending) expect(a >= b && (a !== b || items[i - 1].id > items[i].id), `${sort} at ${i}`).toBe(true);
        else expect(a <= b && (a !== b || items[i - 1].id < items[i].id), `${sort} at ${i}`).toBe(true);
      }
    },
  );

  it("refuses bad filters, sorts and cursors with 400", async () => {
    for (const q of ["minTurns=-1", "maxTurns=x", "minReward=abc", "sort=random", "cursor=abc", "sort=reward&cursor=12", "cursor=1~2"]) {
      expect(await status(`/api/v1/projects/flt/rollouts?${q}`), q).toBe(400);
    }
  });
});

describe("generation, policy and environment filters", () => {
  // two projects with the same generation indexes, policy names and environment keys: a filter must stay in its project
  const MIXED = Array.from({ length: 48 }, (_, i) => ({
    externalId: `m${i}`,
    generation: i % 3 === 0 ? 0 : 1,
    policy: i % 2 ? "ckpt-a" : "ckpt-b",
    environmentKey: i % 4 === 0 ? "e1" : "e2",
    reward: (i % 5) / 4,
    trajectory: [{ role: "user", content: i % 3 === 2 ? `the socket closed in step ${i}` : `all good in step ${i}` }],
  }));
  type Mixed = (typeof MIXED)[number];

  beforeAll(async () => {
    const environments = [
      { key: "e1", config: lake(1) },
      { key: "e2", config: lake(2) },
    ];
    for (const slug of ["mix", "mix-other"]) {
      await createProjectWith(client, { slug }, { environments });
      await client.request("POST", `/api/v1/projects/${slug}/generations`, { json: { index: 1, parentIndex: 0, environments } });
      await client.request("POST", `/api/v1/projects/${slug}/rollouts`, {
        json: MIXED.map((m) => ({ ...m, externalId: `${slug}-${m.externalId}` })),
      });
    }
    // search documents are the worker's (ADR 0007): written here before searching
    await indexPendingRollouts(db.db);
  });

  it("keep exactly the project's rollouts their rule keeps, alone, combined and with a search at every walk length", async () => {
    const mixAll = async (query: string) => {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Page = await client.request<Page>(
          "GET",
          `/api/v1/projects/mix/rollouts?${query}&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        out.push(...page.items.map((r) => r.externalId));
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    };
    const project = (await projectBySlug(db.db, "mix"))!;
    const expected = (rule: (m: Mixed) => boolean) =>
      MIXED.filter(rule)
        .map((m) => `mix-${m.externalId}`)
        .reverse();
    const cases: [string, (m: Mixed) => boolean][] = [
      ["generation=1", (m) => m.generation === 1],
      ["policy=ckpt-a", (m) => m.policy === "ckpt-a"],
      ["environmentKey=e1", (m) => m.environmentKey === "e1"],
      ["generation=0&policy=ckpt-b&environmentKey=e1", (m) => m.generation === 0 && m.policy === "ckpt-b" && m.environmentKey === "e1"],
      [
        "q=socket&generation=1&policy=ckpt-a",
        (m) => m.generation === 1 && m.policy === "ckpt-a" && m.trajectory[0].content.includes("socket"),
      ],
      [
        "q=socket&environmentKey=e2&minReward=0.5",
        (m) => m.environmentKey === "e2" && m.reward >= 0.5 && m.trajectory[0].content.includes("socket"),
      ],
    ];
    for (const [query, rule] of cases) {
      const want = expected(rule);
      expect(want.length, `${query} keeps some`).toBeGreaterThan(0);
      expect(want.length, `${query} drops some`).toBeLessThan(MIXED.length);
      expect(await mixAll(query), query).toEqual(want);
      if (!query.startsWith("q=")) continue;
      // the search's walks in the list's order give the same first page however far they walk
      const params = Object.fromEntries(new URLSearchParams(query));
      for (const walk of [1, 2, 7, 2000]) {
        const page = await listRollouts(db.db, project, { ...params, limit: "3" }, { searchWalk: walk });
        expect(
          page.items.map((r) => r.externalId),
          `${query} walking ${walk}`,
        ).toEqual(want.slice(0, 3));
      }
    }
    // names the project does not have match nothing (and are no error)
    for (const query of ["generation=7", "policy=nobody", "environmentKey=e9", "q=socket&generation=7"])
      expect(await mixAll(query), query).toEqual([]);
  });
});

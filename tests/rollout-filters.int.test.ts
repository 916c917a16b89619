/**
 * The rollouts list's filters and orders over HTTP on a real Postgres: turn and reward ranges, label,
 * sort by reward or turns with keyset pages that neither skip nor repeat a rollout, bad parameters 400.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvForgeClient, ApiError } from "@/cli/client";
import { lake } from "./configs";
import { startApi, stopApi, createProjectWith, type TestDb, type TestServer } from "./api-harness";

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

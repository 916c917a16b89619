/**
 * Long trajectories in pages (trajectory_pages, drizzle/0020_trajectory_pages.sql) on a real Postgres:
 * a trajectory over 1 MB of JSON is stored whole and again in pages of 100 messages; a short one is
 * stored whole only. The turn list, one message in full, the timeline and an annotation's turn check
 * answer the same from the pages as from the whole document, and they do read the pages.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { startApiServer } from "./api-server";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { ApiError, EnvForgeClient } from "@/cli/client";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { PAGED_TRAJECTORY_MIN_CHARS } from "@/lib/ingest/store";
import type { TurnPage, TurnSlice } from "@/lib/rollouts/turn-types";
import type { RolloutTimeline } from "@/lib/rollouts/timeline";

const TOKEN = "test-bootstrap-token-traj-pages-01";
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: Awaited<ReturnType<typeof startApiServer>>;
let client: EnvForgeClient;

/** `count` messages of about 1 KB: tool calls, tool outputs, every seventh timed with usage. */
function trajectory(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    role: i % 2 ? "tool" : "assistant",
    content: `message ${i}: ${"output line\n".repeat(80)}`,
    ...(i % 2 ? { toolCallId: `call-${i - 1}` } : { toolCalls: [{ id: `call-${i}`, name: "bash", arguments: `{"cmd":"step ${i}"}` }] }),
    ...(i % 7 === 0
      ? { timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), usage: { promptTokens: i, completionTokens: 3 } }
      : {}),
  }));
}

const LONG = 1234;
const longTrajectory = trajectory(LONG);
let longId = 0;
let shortId = 0;

async function post(externalId: string, messages: unknown[]): Promise<number> {
  const line = JSON.stringify({ externalId, environmentKey: "e0", policy: "p", reward: 0, trajectory: messages });
  await client.request("POST", "/api/v1/projects/pages/rollouts", { raw: line, contentType: "application/x-ndjson" });
  const { items } = await client.request<{ items: { id: number; externalId: string }[] }>("GET", "/api/v1/projects/pages/rollouts");
  return items.find((r) => r.externalId === externalId)!.id;
}

/** The error of a request that must fail. */
function refused(request: Promise<unknown>): Promise<ApiError> {
  return request.then(
    () => {
      throw new Error("the request was expected to fail");
    },
    (e: unknown) => e as ApiError,
  );
}

async function pageCount(id: number): Promise<number> {
  const r = await db.db.execute<{ n: number }>(sql`select count(*)::int as n from trajectory_pages where rollout_id = ${id}`);
  return r.rows[0].n;
}

/** What the viewer reads of a rollout: pages of the outline, single messages, the timeline. */
async function views(id: number) {
  const get = <T>(path: string) => client.request<T>("GET", `/api/v1/rollouts/${id}${path}`);
  return {
    head: await get<TurnPage>("/turns?from=0&limit=200&preview=50"),
    // across page boundaries (99|100, 1199|1200) and past the end
    middle: await get<TurnPage>("/turns?from=95&limit=10&preview=50"),
    tail: await get<TurnPage>(`/turns?from=1190&limit=500&preview=50`),
    past: await get<TurnPage>(`/turns?from=5000&limit=10`),
    slice: await get<TurnSlice>("/turns/1233?offset=5&length=40"),
    first: await get<TurnSlice>("/turns/0"),
    timeline: await get<RolloutTimeline>("/timeline"),
  };
}

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, TOKEN);
  server = await startApiServer();
  client = new EnvForgeClient({ server: server.url, token: TOKEN });
  await client.request("POST", "/api/v1/projects", { json: { slug: "pages", name: "Pages", family: "frozenlake-mapf" } });
  const config = getBuiltinFamily("frozenlake-mapf")!.sample(createRng(1));
  await client.request("POST", "/api/v1/projects/pages/generations", { json: { environments: [{ key: "e0", config }] } });
  await client.request("POST", "/api/v1/projects/pages/labels", { json: { name: "loops" } });
  expect(JSON.stringify(longTrajectory).length).toBeGreaterThan(PAGED_TRAJECTORY_MIN_CHARS);
  longId = await post("long-1", longTrajectory);
  shortId = await post("short-1", trajectory(300));
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe("trajectory pages", () => {
  it("pages a trajectory over 1 MB (100 messages a page, the last one short) and leaves a short one whole only", async () => {
    expect(await pageCount(longId)).toBe(13);
    expect(await pageCount(shortId)).toBe(0);
    const last = await db.db.execute<{ page: number; message_count: number }>(
      sql`select page, message_count from trajectory_pages where rollout_id = ${longId} order by page desc limit 1`,
    );
    expect(last.rows[0]).toEqual({ page: 12, message_count: 34 });
    // the whole document stays what GET /rollouts/{id} returns
    const whole = await client.request<{ trajectory: unknown[] }>("GET", `/api/v1/rollouts/${longId}`);
    expect(whole.trajectory).toEqual(longTrajectory);
    // ingest writes the pages as it makes them and the whole document from them: the same pages (messages, counts,
    // steps) as envforge_page_trajectories makes from the whole document
    const table = async () =>
      (
        await db.db.execute(
          sql`select page, message_count, messages::text, steps::text from trajectory_pages where rollout_id = ${longId} order by page`,
        )
      ).rows;
    const written = await table();
    await db.db.execute(sql`delete from trajectory_pages where rollout_id = ${longId}`);
    await db.db.execute(sql`select envforge_page_trajectories(array[${longId}]::bigint[], 100)`);
    expect(await table()).toEqual(written);
  });

  it("writes a trajectory whose pages take several statements (over 4 MB) with the same pages as the migration's function", async () => {
    const huge = trajectory(4600);
    expect(JSON.stringify(huge).length).toBeGreaterThan(4_000_000);
    const id = await post("huge-1", huge);
    const table = async () =>
      (
        await db.db.execute(
          sql`select page, message_count, messages::text, steps::text from trajectory_pages where rollout_id = ${id} order by page`,
        )
      ).rows;
    const written = await table();
    expect(written.map((r) => r.page)).toEqual(Array.from({ length: 46 }, (_, i) => i));
    await db.db.execute(sql`delete from trajectory_pages where rollout_id = ${id}`);
    await db.db.execute(sql`select envforge_page_trajectories(array[${id}]::bigint[], 100)`);
    expect(await table()).toEqual(written);
    const whole = await client.request<{ trajectory: unknown[] }>("GET", `/api/v1/rollouts/${id}`);
    expect(whole.trajectory).toEqual(huge);
  });

  it("answers the viewer the same from the pages as from the whole document", async () => {
    const paged = await views(longId);
    expect(paged.head.total).toBe(LONG);
    expect(paged.head.turns.map((t) => t.index)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(paged.middle.turns.map((t) => t.index)).toEqual([95, 96, 97, 98, 99, 100, 101, 102, 103, 104]);
    expect(paged.tail.turns.map((t) => t.index)).toEqual(Array.from({ length: 44 }, (_, i) => 1190 + i));
    expect(paged.tail.turns[43].preview).toMatch(/^message 1233: /);
    expect(paged.past).toMatchObject({ total: LONG, turns: [] });
    expect(paged.slice).toMatchObject({ index: 1233, content: longTrajectory[1233].content.slice(5, 45), toolCallId: "call-1232" });
    expect(paged.timeline.steps.map((s) => s.index)).toEqual(Array.from({ length: Math.ceil(LONG / 7) }, (_, i) => i * 7));
    expect(paged.timeline.steps[1]).toMatchObject({ role: "tool", promptTokens: 7, completionTokens: 3 });
    expect((await refused(client.request("GET", `/api/v1/rollouts/${longId}/turns/${LONG}`))).status).toBe(404);

    // the same reads with the pages gone take the whole-document path: identical answers
    await db.db.execute(sql`delete from trajectory_pages where rollout_id = ${longId}`);
    expect(await views(longId)).toEqual(paged);
    await db.db.execute(sql`select envforge_page_trajectories(array[${longId}]::bigint[], 100)`);
    expect(await pageCount(longId)).toBe(13);
  });

  it("reads the pages, not the whole document: a page changed in place is what the viewer shows", async () => {
    await db.db.execute(sql`
      update trajectory_pages set messages = jsonb_set(messages, '{33,content}', '"rewritten in the page"')
      where rollout_id = ${longId} and page = 12`);
    const tail = await client.request<TurnPage>("GET", `/api/v1/rollouts/${longId}/turns?from=1230&limit=10`);
    expect(tail.turns[3]).toMatchObject({ index: 1233, preview: "rewritten in the page" });
    const slice = await client.request<TurnSlice>("GET", `/api/v1/rollouts/${longId}/turns/1233`);
    expect(slice.content).toBe("rewritten in the page");
    await db.db.execute(sql`delete from trajectory_pages where rollout_id = ${longId}`);
    await db.db.execute(sql`select envforge_page_trajectories(array[${longId}]::bigint[], 100)`);
  });

  it("checks an annotation's turn against the paged message count", async () => {
    const ok = await client.request<{ id: number }>("POST", `/api/v1/rollouts/${longId}/annotations`, {
      json: { label: "loops", turn: LONG - 1 },
    });
    expect(ok.id).toBeGreaterThan(0);
    const past = await refused(client.request("POST", `/api/v1/rollouts/${longId}/annotations`, { json: { label: "loops", turn: LONG } }));
    expect(past.status).toBe(422);
    expect(past.message).toContain(`it has ${LONG}`);
    // the count comes from the pages: a shortened last page is what the check sees
    await db.db.execute(sql`update trajectory_pages set message_count = 10 where rollout_id = ${longId} and page = 12`);
    const cut = await refused(client.request("POST", `/api/v1/rollouts/${longId}/annotations`, { json: { label: "loops", turn: 1210 } }));
    expect(cut.message).toContain("it has 1210");
  });
});

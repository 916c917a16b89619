/**
 * Reading a trajectory over HTTP on a real Postgres: reasoning (a `<think>` block, a lone `</think>`
 * as Qwen's template writes it, ATIF's reasoning_content kept as `reasoning`) is served apart from
 * the content, in the outline and in the slice, and slice offsets count in the content without it.
 * The lone-`</think>` message is the real one from harbor-tb2 (tmax-9b, extract-elf__opDBqDJ,
 * agent/trajectory.json, message 2).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { startApiServer } from "./api-server";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { EnvForgeClient } from "@/cli/client";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import type { TurnPage, TurnSlice } from "@/lib/rollouts/turn-types";

const TOKEN = "test-bootstrap-token-trajectory-01";
const fixtures = fixturesDir();
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: Awaited<ReturnType<typeof startApiServer>>;
let client: EnvForgeClient;

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, TOKEN);
  server = await startApiServer();
  client = new EnvForgeClient({ server: server.url, token: TOKEN });
  await client.request("POST", "/api/v1/projects", { json: { slug: "read", name: "Reading", family: "frozenlake-mapf" } });
  const config = getBuiltinFamily("frozenlake-mapf")!.sample(createRng(1));
  await client.request("POST", "/api/v1/projects/read/generations", { json: { environments: [{ key: "e0", config }] } });
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe.runIf(fixtures)("trajectory reasoning apart from the content", () => {
  it("serves reasoning apart in outline and slice; offsets count without it", async () => {
    const trial = path.join(fixtures!, "harbor-tb2/tmax-9b/terminal-bench-2-0/extract-elf__opDBqDJ/agent/trajectory.json");
    const real = JSON.parse(fs.readFileSync(trial, "utf8"))[2] as {
      content: string;
      tool_calls: { id: string; function: { name: string; arguments: string } }[];
    };
    expect(real.content).toContain("</think>");
    const trajectory = [
      { role: "user", content: "Please solve this task" },
      {
        role: "assistant",
        content: real.content,
        toolCalls: real.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
      },
      { role: "tool", toolCallId: real.tool_calls[0].id, content: "total 20" },
      { role: "assistant", content: "<think>check the header</think>Reading the ELF header now.", reasoning: "ATIF reasoning_content" },
    ];
    const line = { externalId: "think-1", environmentKey: "e0", policy: "p", reward: 0, trajectory };
    await client.request("POST", "/api/v1/projects/read/rollouts", { raw: JSON.stringify(line), contentType: "application/x-ndjson" });
    const { items } = await client.request<{ items: { id: number }[] }>("GET", "/api/v1/projects/read/rollouts");
    const id = items[0].id;

    const page = await client.request<TurnPage>("GET", `/api/v1/rollouts/${id}/turns?preview=40`);
    const thinking = page.turns[1];
    expect(thinking.preview).toBe(""); // it said nothing besides its reasoning and the call
    expect(thinking.reasoningPreview).toMatch(/^Let me analyze this task/);
    expect(thinking.reasoningPreview!.length).toBe(40);
    expect(thinking.reasoningLength).toBeGreaterThan(100);
    expect(thinking.toolCalls[0]).toMatchObject({ name: "bash" });
    expect(page.turns[0].reasoningLength).toBeUndefined();
    const both = page.turns[3];
    expect(both.preview).toBe("Reading the ELF header now.");
    expect(both.length).toBe("Reading the ELF header now.".length);

    const slice = await client.request<TurnSlice>("GET", `/api/v1/rollouts/${id}/turns/3?offset=8&length=3`);
    expect(slice.content).toBe("the");
    expect(slice.reasoning).toBe("ATIF reasoning_content\n\ncheck the header");
    const full = await client.request<TurnSlice>("GET", `/api/v1/rollouts/${id}/turns/1`);
    expect(full.reasoning).not.toContain("</think>");
    expect(full.reasoning!.length).toBe(thinking.reasoningLength);
  });
});

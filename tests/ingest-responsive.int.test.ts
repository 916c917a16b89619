/**
 * A large ingest of hostile text does not starve the server: while a body of rollouts whose
 * verifier output and error message are megabytes without whitespace is classified and stored,
 * `/api/health` keeps answering. Every health request fired during the ingest answers 200, and
 * some answer before the ingest does (classification yields to the event loop between slices).
 * The latency is measured by `npm run bench:regex`, not asserted here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./db";
import { startApiServer } from "./api-server";
import { ensureBootstrapKey } from "@/lib/auth/keys";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { EnvForgeClient } from "@/cli/client";

const TOKEN = "test-bootstrap-token-responsive-1";
const ROLLOUTS = 8;
const MB = 1 << 20;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let server: Awaited<ReturnType<typeof startApiServer>>;
let admin: EnvForgeClient;

beforeAll(async () => {
  db = await freshDatabase();
  await ensureBootstrapKey(db.db, TOKEN);
  server = await startApiServer();
  admin = new EnvForgeClient({ server: server.url, token: TOKEN });
  await admin.request("POST", "/api/v1/projects", { json: { slug: "resp", name: "Responsive", family: "frozenlake-mapf" } });
  const family = getBuiltinFamily("frozenlake-mapf")!;
  const environments = Array.from({ length: 4 }, (_, i) => ({ key: `env-${i}`, config: family.sample(createRng(40 + i)) }));
  await admin.request("POST", "/api/v1/projects/resp/generations", { json: { environments } });
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

describe("health during a large ingest", () => {
  it("answers every request while megabytes of whitespace-free output are classified", async () => {
    const noise = "a.1-".repeat(MB / 4);
    const lines = Array.from({ length: ROLLOUTS }, (_, i) =>
      JSON.stringify({
        externalId: `big-${i}`,
        environmentKey: `env-${i % 4}`,
        policy: "p",
        reward: 0,
        status: "errored",
        error: { type: "ValueError", message: noise },
        verifierOutput: `${"= 1 passed ".repeat(MB / 11)}\n${noise}`,
      }),
    );
    let ingestDone = false;
    const ingest = admin
      .request<{ accepted: number }>("POST", "/api/v1/projects/resp/rollouts", {
        raw: lines.join("\n"),
        contentType: "application/x-ndjson",
      })
      .finally(() => {
        ingestDone = true;
      });

    const answers: { status: number; beforeIngestDone: boolean }[] = [];
    while (!ingestDone) {
      const res = await fetch(`${server.url}/api/health`);
      answers.push({ status: res.status, beforeIngestDone: !ingestDone });
      await res.arrayBuffer();
    }
    const summary = await ingest;
    expect(summary).toMatchObject({ accepted: ROLLOUTS, rejected: [] });
    expect(answers.length).toBeGreaterThan(1);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.beforeIngestDone).length).toBeGreaterThan(1);
  });
});

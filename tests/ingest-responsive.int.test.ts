/**
 * A large ingest of hostile text does not starve the server: while a body of rollouts whose
 * verifier output and error message are megabytes without whitespace is classified and stored,
 * `/api/health` keeps answering. Every health request fired during the ingest answers 200, and
 * some answer before the ingest does (classification yields to the event loop between slices).
 * The latency is measured by `npm run bench:regex`, not asserted here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { EnvForgeClient } from "@/cli/client";
import { startApi, stopApi, createProjectWith, type TestDb, type TestServer } from "./api-harness";

const TOKEN = "test-bootstrap-token-responsive-1";
const ROLLOUTS = 8;
const MB = 1 << 20;
let db: TestDb;
let server: TestServer;
let admin: EnvForgeClient;

beforeAll(async () => {
  ({ db, server, admin } = await startApi(TOKEN));
  await createProjectWith(admin, { slug: "resp", name: "Responsive" });
  const family = getBuiltinFamily("frozenlake-mapf")!;
  const environments = Array.from({ length: 4 }, (_, i) => ({ key: `env-${i}`, config: family.sample(createRng(40 + i)) }));
  await admin.request("POST", "/api/v1/projects/resp/generations", { json: { environments } });
});
afterAll(async () => {
  await stopApi({ server, db });
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

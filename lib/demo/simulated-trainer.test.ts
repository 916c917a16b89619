/**
 * scripts/simulated-trainer.ts as a `local` target runs it: a payload file, the target's secret, and a loopback
 * ingest endpoint that takes the NDJSON it posts. Its draws depend on the project, the generation and the learner,
 * never on the dispatch id, so a fresh demo shows the same curriculum on every machine.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import type { GenerationPayload } from "@/lib/dispatch/types";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ef-sim-trainer-"));
const posted: string[] = [];
let server: http.Server;
let url = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      posted.push(body);
      const lines = body.split("\n").filter(Boolean).length;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ accepted: lines, duplicates: 0, rejected: [] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/rollouts`;
});
afterAll(() => {
  server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function payload(dispatchId: string, generation: number): GenerationPayload {
  const family = getBuiltinFamily("frozenlake-mapf")!;
  const rng = createRng(7);
  return {
    dispatchId,
    createdAt: "2026-12-03T00:00:00.000Z",
    project: { slug: "demo-frozenlake", name: "Demo", family: "frozenlake-mapf", successThreshold: 1 },
    generation: { index: generation, status: "approved", parentIndex: null, trainingSteps: 200, mixWeight: null, proposalId: null },
    target: { name: "simulated-trainer", kind: "trainer" },
    environments: Array.from({ length: 6 }, (_, i) => ({
      key: `fl-${i}`,
      config: family.sample(rng, { hardness: { min: 0.1, max: 0.55 } }),
      configHash: `h${i}`,
      weight: 1,
      parentKey: null,
      op: "seed",
      direction: null,
    })),
    callbacks: { validation: url, rollouts: url },
  };
}

/** Runs the trainer on a payload with its state in `stateDir`; the outcome of each attempt it posted, in order. */
async function train(p: GenerationPayload, stateDir: string): Promise<string> {
  fs.mkdirSync(stateDir, { recursive: true });
  const file = path.join(stateDir, `${p.dispatchId}.json`);
  fs.writeFileSync(file, JSON.stringify(p));
  posted.length = 0;
  await run(process.execPath, ["--import", "tsx", "scripts/simulated-trainer.ts"], {
    cwd: root,
    env: { ...process.env, ENVFORGE_PAYLOAD_PATH: file, ENVFORGE_TARGET_SECRET: "secret", ENVFORGE_STATE_DIR: stateDir },
  });
  expect(posted).toHaveLength(1);
  const rollouts = posted[0].split("\n").map((l) => JSON.parse(l) as { reward?: number; status: string; turns: number });
  expect(rollouts).toHaveLength(6 * 8);
  return rollouts.map((r) => `${r.reward ?? "-"}${r.status[0]}${r.turns}`).join(" ");
}

describe("the demo's simulated trainer", () => {
  it("draws the same attempts for the same generation and learner whatever the dispatch id; trained further, new ones", async () => {
    const first = await train(payload("11111111-aaaa-4aaa-8aaa-aaaaaaaaaaaa", 0), path.join(tmp, "a"));
    const again = await train(payload("22222222-bbbb-4bbb-8bbb-bbbbbbbbbbbb", 0), path.join(tmp, "b"));
    expect(again).toBe(first);
    // the learner's state from the first run: the next dispatch of the same generation is a new draw
    const trained = await train(payload("33333333-cccc-4ccc-8ccc-cccccccccccc", 0), path.join(tmp, "a"));
    expect(trained).not.toBe(first);
  }, 120_000);
});

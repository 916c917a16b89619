/**
 * The demo's closed loop on a real Postgres: the seeded generation is dispatched to the simulated
 * trainer (a real `local` target running scripts/simulated-trainer.ts), whose rollouts come back
 * through the ingest API over HTTP; the heuristic engineer proposes, the loop approves and
 * materializes, and the next generation is trained too.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_SLUG, seedDemo } from "@/lib/demo/seed";
import { runDemoLoop } from "@/lib/demo/loop";
import { EnvForgeClient } from "@/cli/client";
import { startApi, stopApi, startTestWorker, type TestDb, type TestServer } from "./api-harness";
import type PgBoss from "pg-boss";

const TOKEN = "test-bootstrap-token-demo-loop-01";
const root = path.resolve(import.meta.dirname, "..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ef-demo-"));
// as root the trainer runs as envforge-runner, which must be able to enter the work folder (mkdtemp makes it 0700)
fs.chmodSync(tmp, 0o755);
// the demo is what local targets are on for (npm start sets this for the embedded demo)
process.env.ENVFORGE_LOCAL_TARGETS = "1";
let db: TestDb;
let server: TestServer;
let worker: PgBoss;
let client: EnvForgeClient;

beforeAll(async () => {
  process.env.ENVFORGE_SECRET_KEY ??= "test-secret-key-for-the-demo-0123456789";
  process.env.ENVFORGE_DISPATCH_POLL_SECONDS = "1";
  ({ db, server, admin: client } = await startApi(TOKEN));
  process.env.ENVFORGE_PUBLIC_URL = server.url;
  worker = await startTestWorker(db);
}, 60_000);
afterAll(async () => {
  await worker?.stop({ graceful: false, wait: true });
  await stopApi({ server, db }, { queue: true });
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("the demo's closed loop", () => {
  it("trains, proposes, approves, materializes and trains again, all through the product's own paths", async () => {
    const project = await seedDemo(db.db, { root, workDir: tmp, populationSize: 10 });
    expect(project?.slug).toBe(DEMO_SLUG);
    expect(await seedDemo(db.db, { root, workDir: tmp })).toBeNull(); // a second start changes nothing

    await runDemoLoop(db.db, { slug: DEMO_SLUG, cycles: 1 });

    const overview = await client.request<{
      demoState: { status: string };
      generations: { index: number; status: string; source: string; rollouts: number }[];
    }>("GET", `/api/v1/projects/${DEMO_SLUG}`);
    expect(overview.demoState.status).toBe("idle");
    expect(overview.generations.map((g) => [g.index, g.source, g.rollouts > 0])).toEqual([
      [0, "seed", true],
      [1, "proposal", true],
    ]);
    // the rollouts came from the simulated trainer through the ingest API, as its policy
    const rollouts = await client.request<{ items: { policy: string; externalId: string }[] }>(
      "GET",
      `/api/v1/projects/${DEMO_SLUG}/rollouts?generation=1&limit=5`,
    );
    expect(rollouts.items[0].policy).toMatch(/^sim-policy-step\d+$/);
    expect(rollouts.items[0].externalId).toMatch(/^sim-/);
    const dispatches = await client.request<{ dispatches: { status: string; adapter: string }[] }>(
      "GET",
      `/api/v1/projects/${DEMO_SLUG}/dispatches`,
    );
    expect(dispatches.dispatches.map((d) => [d.adapter, d.status])).toEqual([
      ["local", "succeeded"],
      ["local", "succeeded"],
    ]);
    // the learner's skills carry over to the next generation
    const learner = fs.statSync(path.join(tmp, "state", `learner-${DEMO_SLUG}.json`));
    // written by the trainer itself: as root that is envforge-runner, never root
    if (process.getuid?.() === 0) expect(learner.uid).not.toBe(0);
    else expect(learner.uid).toBe(process.getuid?.());
    const audit = await client.request<{ events: { actor: string; action: string }[] }>("GET", `/api/v1/projects/${DEMO_SLUG}/audit`);
    expect(audit.events.find((e) => e.action === "proposal.materialize")?.actor).toBe("system:demo-loop");
  }, 120_000);
});

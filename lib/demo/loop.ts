/**
 * The closed loop of the demo project, on one machine with no GPU and no network: the latest
 * generation is dispatched to the simulated trainer (a `local` target), whose rollouts come back
 * through the ingest API; the heuristic engineer proposes the next generation from the failure
 * summary; the loop approves it as the demo's reviewer, materializes it, and dispatches it again.
 * Every step goes through the same services (and audit log) a person's actions would.
 */
import path from "node:path";
import { and, count, desc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { dispatches, generations, projects, proposals, rollouts } from "@/lib/db/schema";
import type { Principal } from "@/lib/auth/principal";
import { Conflict } from "@/lib/errors";
import type { ProjectRow } from "@/lib/projects/service";
import { getGeneration } from "@/lib/generations/service";
import { createDispatch } from "@/lib/dispatch/service";
import { createProposal, getProposal } from "@/lib/proposals";
import { materializeProposal, reviewProposal } from "@/lib/review/decisions";
import { loadSettings } from "@/lib/config/env";

export const demoLoopJobSchema = z.object({
  slug: z.string().min(1),
  cycles: z.number().int().min(1).max(20),
  scheduled: z.boolean().optional(),
});

/** The simulated trainer's target name in a demo project. */
export const DEMO_TARGET = "simulated-trainer";
/** The demo loop stops adding generations here (a button press still runs one more). */
export const DEMO_MAX_GENERATIONS = 12;

/** Progress of the demo loop as the project page shows it. */
export interface DemoState {
  status: "queued" | "running" | "idle" | "failed";
  cycle: number;
  cycles: number;
  message: string;
  at: string;
}

/** The actor the loop acts as (its decisions are audited under this name). */
const DEMO_PRINCIPAL: Principal = { kind: "key", id: 0, actor: "system:demo-loop", role: "admin", projectId: null, name: "demo loop" };

/** The trainer script a demo target runs. */
export function simulatedTrainerCommand(root: string): string[] {
  return [process.execPath, "--import", "tsx", path.join(root, "scripts", "simulated-trainer.ts")];
}

/** Base URL the simulated trainer posts rollouts to. */
export function demoOrigin(): string {
  const s = loadSettings();
  return s.ENVFORGE_PUBLIC_URL || `http://127.0.0.1:${s.PORT}`;
}

/** Record the loop's progress on the project. */
export async function setDemoState(db: Db, projectId: number, state: Omit<DemoState, "at">) {
  await db
    .update(projects)
    .set({ demoState: { ...state, at: new Date().toISOString() } })
    .where(eq(projects.id, projectId));
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== null) return got;
    if (Date.now() > deadline) throw new Error(`${what} did not finish within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function latestGeneration(db: Db, project: ProjectRow) {
  const [g] = await db.select().from(generations).where(eq(generations.projectId, project.id)).orderBy(desc(generations.index)).limit(1);
  return g;
}

/** Dispatch a generation to the simulated trainer and wait until its rollouts are in. */
async function trainOn(db: Db, project: ProjectRow, index: number) {
  const g = await getGeneration(db, project, index);
  if (g.status !== "approved" && g.status !== "materialized") {
    await db.update(generations).set({ status: "approved" }).where(eq(generations.id, g.id));
    g.status = "approved";
  }
  const origin = demoOrigin();
  await waitFor("the web server", 5 * 60_000, () =>
    fetch(`${origin}/api/health`)
      .then((r) => (r.ok ? true : null))
      .catch(() => null),
  );
  const { dispatchId } = await createDispatch(db, project, g, { target: DEMO_TARGET }, DEMO_PRINCIPAL, origin);
  const final = await waitFor(`the simulated trainer on generation ${index}`, 5 * 60_000, async () => {
    const [d] = await db
      .select({ status: dispatches.status, lastError: dispatches.lastError })
      .from(dispatches)
      .where(eq(dispatches.id, dispatchId));
    return d && ["succeeded", "failed", "cancelled"].includes(d.status) ? d : null;
  });
  if (final.status !== "succeeded")
    throw new Error(`the simulated trainer ${final.status} on generation ${index}${final.lastError ? `: ${final.lastError}` : ""}`);
}

async function hasRollouts(db: Db, generationId: number) {
  const [r] = await db.select({ n: count() }).from(rollouts).where(eq(rollouts.generationId, generationId));
  return r.n > 0;
}

/** One turn of the curriculum: propose from the latest generation, approve, materialize, train on the result. */
async function cycle(db: Db, project: ProjectRow, say: (m: string) => Promise<void>) {
  let g = await latestGeneration(db, project);
  if (!(await hasRollouts(db, g.id))) {
    await say(`training on generation ${g.index}`);
    await trainOn(db, project, g.index);
  }
  await say(`the engineer proposes generation ${g.index + 1}`);
  const { proposalId } = await createProposal(db, project, g, { engineer: "heuristic", options: { seed: g.index + 1 } }, DEMO_PRINCIPAL);
  const ready = await waitFor("the engineer", 5 * 60_000, async () => {
    const [p] = await db.select({ status: proposals.status, error: proposals.error }).from(proposals).where(eq(proposals.id, proposalId));
    return p && !["queued", "running"].includes(p.status) ? p : null;
  });
  if (ready.status !== "ready") throw new Error(`the engineer failed: ${ready.error ?? ready.status}`);
  const proposal = await getProposal(db, proposalId, DEMO_PRINCIPAL);
  await say(`approving ${proposal.items.length} items of the proposal`);
  await reviewProposal(
    db,
    proposalId,
    {
      decisions: proposal.items.map((i) => ({ itemId: i.id, decision: "approve" })),
      comment: "Approved by the demo loop: every item passed the family's validator.",
    },
    DEMO_PRINCIPAL,
  );
  const made = await materializeProposal(db, proposalId, { trainingSteps: 200 }, DEMO_PRINCIPAL);
  g = await getGeneration(db, project, made.generation);
  await say(`training on generation ${g.index}`);
  await trainOn(db, project, g.index);
}

/** The worker's job: run `cycles` turns of the demo curriculum. */
export async function runDemoLoop(db: Db, data: unknown): Promise<void> {
  const { slug, cycles, scheduled } = demoLoopJobSchema.parse(data);
  const [row] = await db.select().from(projects).where(eq(projects.slug, slug));
  if (!row) return; // the schedule outlived its project
  const project = row as ProjectRow;
  if (!project.isDemo) throw new Error(`'${slug}' is not a demo project.`);
  const state = project.demoState as DemoState | null;
  if (scheduled && (demoBusy(state) || (await generationCount(db, project.id)) >= DEMO_MAX_GENERATIONS)) return;
  for (let i = 1; i <= cycles; i++) {
    const say = (message: string) => setDemoState(db, project.id, { status: "running", cycle: i, cycles, message });
    try {
      await cycle(db, project, say);
    } catch (err) {
      await setDemoState(db, project.id, { status: "failed", cycle: i, cycles, message: (err as Error).message });
      throw err;
    }
  }
  const g = await latestGeneration(db, project);
  await setDemoState(db, project.id, {
    status: "idle",
    cycle: cycles,
    cycles,
    message: `generation ${g.index} trained; press the button for another cycle`,
  });
}

/** Whether a cycle is queued or running (a state older than 15 minutes is a run that died with its worker). */
export function demoBusy(state: DemoState | null | undefined, now = Date.now()): boolean {
  if (!state || (state.status !== "running" && state.status !== "queued")) return false;
  return now - Date.parse(state.at) < 15 * 60_000;
}

/** POST /projects/{slug}/demo-cycle: queue one more cycle of a demo project (reviewers). */
export async function requestDemoCycle(
  db: Db,
  project: ProjectRow,
  principal: Principal,
  enqueueJob: (data: z.infer<typeof demoLoopJobSchema>) => Promise<unknown>,
) {
  if (!project.isDemo) throw new Conflict(`'${project.slug}' is not a demo project; its generations come from your own trainer.`);
  if (demoBusy(project.demoState as DemoState | null)) throw new Conflict("A demo cycle is already running; wait for it to finish.");
  await queueDemoCycles(db, project, 1, enqueueJob);
  return { status: "queued" as const };
}

/** Queue demo cycles (the button, the schedule, the first start). */
export async function queueDemoCycles(
  db: Db,
  project: ProjectRow,
  cycles: number,
  enqueueJob: (data: z.infer<typeof demoLoopJobSchema>) => Promise<unknown>,
) {
  await setDemoState(db, project.id, { status: "queued", cycle: 0, cycles, message: "waiting for a worker" });
  await enqueueJob({ slug: project.slug, cycles });
}

/** Generations of a project (the schedule stops at DEMO_MAX_GENERATIONS). */
export async function generationCount(db: Db, projectId: number) {
  const [r] = await db
    .select({ n: count() })
    .from(generations)
    .where(and(eq(generations.projectId, projectId)));
  return r.n;
}

/**
 * The demo's simulated trainer, run by a `local` dispatch target: it reads the dispatched
 * generation (ENVFORGE_PAYLOAD_PATH), lets the curriculum arena's learner attempt every
 * environment (a GRPO group of 8), posts those rollouts back through the ingest API (the
 * payload's callback, authorised by the target's secret), trains on them for the generation's
 * steps, and keeps the learner's skills for the next generation in the target's state folder.
 */
import fs from "node:fs";
import path from "node:path";
import { getBuiltinFamily } from "@/lib/families/registry";
import { createRng, hashSeed } from "@/lib/families/rng";
import { DEFAULT_LEARNER, Learner, type HiddenTask } from "@/lib/arena/learner";
import { simulatedAttempt } from "@/lib/demo/attempts";
import type { GenerationPayload } from "@/lib/dispatch/types";

const GROUP = 8;

async function main() {
  const payloadPath = process.env.ENVFORGE_PAYLOAD_PATH;
  const token = process.env.ENVFORGE_TARGET_SECRET;
  if (!payloadPath) throw new Error("ENVFORGE_PAYLOAD_PATH is not set: run me from a local dispatch target.");
  if (!token) throw new Error("ENVFORGE_TARGET_SECRET is not set: give the target an ingest API key as its secret.");
  const payload = JSON.parse(fs.readFileSync(payloadPath, "utf8")) as GenerationPayload;
  const family = getBuiltinFamily(payload.project.family);
  if (!family?.difficulty)
    throw new Error(`The simulated trainer needs a built-in family with a simulator, not '${payload.project.family}'.`);

  // the state folder the local target keeps for its commands (the dispatch folders' parent before it existed)
  const stateDir = process.env.ENVFORGE_STATE_DIR ?? path.dirname(process.env.ENVFORGE_DISPATCH_DIR ?? path.dirname(payloadPath));
  const stateFile = path.join(stateDir, `learner-${payload.project.slug}.json`);
  const state = fs.existsSync(stateFile) ? (JSON.parse(fs.readFileSync(stateFile, "utf8")) as { theta: number[]; steps: number }) : null;
  // a faster learner than the arena's, so a few demo generations show progress
  const learner = new Learner({ ...DEFAULT_LEARNER, learningRate: 0.06 });
  if (state) state.theta.forEach((v, i) => (learner.theta[i] = v));
  const stepsSoFar = state?.steps ?? 0;
  const policy = `sim-policy-step${stepsSoFar}`;
  // the same project, generation and learner give the same attempts, so every fresh demo shows the same curriculum
  // (a dispatch id is random); a generation dispatched again after training is a new draw
  const rng = createRng(hashSeed(`${payload.project.slug}/${payload.generation.index}/${stepsSoFar}`));

  const tasks = payload.environments.map((e) => {
    const d = family.difficulty!(e.config as never);
    return { env: e, task: { difficulty: d.difficulty, skills: d.skills, pMax: d.pMax, trap: null } satisfies HiddenTask };
  });
  // the policy as it is now: one group per environment, posted back as rollouts
  const lines: string[] = [];
  const groups = tasks.map(({ env, task }) => {
    const p = learner.successProbability(task);
    let successes = 0;
    for (let a = 0; a < GROUP; a++) {
      const ok = rng.next() < p;
      successes += ok ? 1 : 0;
      const rollout = simulatedAttempt(rng, env, {
        ok,
        externalId: `sim-${payload.dispatchId.slice(0, 8)}-${env.key}-a${a}`,
        generation: payload.generation.index,
        policy,
      });
      lines.push(JSON.stringify(rollout));
    }
    return { task, successes, attempts: GROUP, share: learner.skillShare(task) };
  });
  const res = await fetch(payload.callbacks.rollouts, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/x-ndjson" },
    body: lines.join("\n"),
  });
  const summary = (await res.json().catch(() => ({}))) as {
    accepted?: number;
    duplicates?: number;
    rejected?: unknown[];
    error?: { message: string };
  };
  if (!res.ok) throw new Error(`posting rollouts failed (${res.status}): ${summary.error?.message ?? "no message"}`);
  console.log(
    `posted ${lines.length} rollouts: ${summary.accepted} accepted, ${summary.duplicates} duplicates, ${summary.rejected?.length ?? 0} rejected`,
  );

  // train on the generation: each step replays the groups with fresh attempts
  const steps = Math.max(1, Math.round((payload.generation.trainingSteps ?? 200) / 50));
  learner.update(groups);
  for (let s = 1; s < steps; s++) {
    learner.update(
      tasks.map(({ task }) => {
        const p = learner.successProbability(task);
        let successes = 0;
        for (let a = 0; a < GROUP; a++) successes += rng.next() < p ? 1 : 0;
        return { task, successes, attempts: GROUP, share: learner.skillShare(task) };
      }),
    );
  }
  fs.mkdirSync(path.dirname(stateFile), { recursive: true });
  fs.writeFileSync(stateFile, JSON.stringify({ theta: [...learner.theta], steps: stepsSoFar + steps * 50 }));
  console.log(`trained ${steps} steps; skills ${[...learner.theta].map((t) => t.toFixed(2)).join(", ")}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

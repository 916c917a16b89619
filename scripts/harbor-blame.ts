/**
 * Prints how the failure classifier files each trial of Harbor job folders: rollouts per
 * category, behaviour clusters among the failures (and, with --list, each infra_error trial with
 * its signature).
 * Usage: node --import tsx scripts/harbor-blame.ts [--list] <jobDir>...
 */
import { rolloutBehaviours } from "@/lib/analytics/behaviours";
import path from "node:path";
import { classifyRollout, failureSignature } from "@/lib/analytics/failures";
import { readHarborJob } from "@/lib/ingest/harbor";
import { failureInputFromRollout } from "@/lib/ingest/normalized";

async function main() {
  const args = process.argv.slice(2);
  const list = args.includes("--list");
  for (const dir of args.filter((a) => a !== "--list")) {
    const job = await readHarborJob(path.resolve(dir));
    const counts: Record<string, number> = {};
    const infra: string[] = [];
    const behaviours: Record<string, { count: number; tasks: Set<string> }> = {};
    for (const t of job.trials) {
      const input = failureInputFromRollout(t.rollout);
      const category = classifyRollout(input) ?? "success";
      counts[category] = (counts[category] ?? 0) + 1;
      if (category !== "success") {
        const meta = t.rollout.metadata ?? {};
        const found = rolloutBehaviours({
          success: false,
          errorType: t.rollout.error?.type,
          turns: t.rollout.turns,
          maxSteps: typeof meta.maxSteps === "number" ? meta.maxSteps : null,
          formatErrors: typeof meta.formatErrors === "number" ? meta.formatErrors : null,
          trajectory: t.rollout.trajectory,
        });
        for (const b of found) {
          behaviours[b] ??= { count: 0, tasks: new Set() };
          behaviours[b].count += 1;
          behaviours[b].tasks.add(t.taskName);
        }
      }
      if (category === "infra_error") infra.push(`${t.trialName}\t${failureSignature(input, category)}`);
    }
    process.stdout.write(`${dir}: ${job.trials.length} trials, ${job.unreadable.length} unreadable\n`);
    for (const [c, n] of Object.entries(counts).sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${c}\t${n}\n`);
    if (list) for (const l of infra) process.stdout.write(`    ${l}\n`);
    process.stdout.write("  behaviours among failures:\n");
    for (const [b, v] of Object.entries(behaviours).sort((x, y) => y[1].count - x[1].count)) {
      process.stdout.write(`    ${b}\t${v.count} rollouts, ${v.tasks.size} tasks\n`);
    }
  }
}
void main();

/**
 * Prints how the failure classifier files each trial of Harbor job folders: rollouts per
 * category (and, with --list, each infra_error trial with its signature).
 * Usage: node --import tsx scripts/harbor-blame.ts [--list] <jobDir>...
 */
import { classifyRollout, failureSignature } from "@/lib/analytics/failures";
import { readHarborJob } from "@/lib/ingest/harbor";
import { failureInputFromRollout } from "@/lib/ingest/normalized";

async function main() {
  const args = process.argv.slice(2);
  const list = args.includes("--list");
  for (const dir of args.filter((a) => a !== "--list")) {
    const job = await readHarborJob(dir);
    const counts: Record<string, number> = {};
    const infra: string[] = [];
    for (const t of job.trials) {
      const input = failureInputFromRollout(t.rollout);
      const category = classifyRollout(input) ?? "success";
      counts[category] = (counts[category] ?? 0) + 1;
      if (category === "infra_error") infra.push(`${t.trialName}\t${failureSignature(input, category)}`);
    }
    process.stdout.write(`${dir}: ${job.trials.length} trials, ${job.unreadable.length} unreadable\n`);
    for (const [c, n] of Object.entries(counts).sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${c}\t${n}\n`);
    if (list) for (const l of infra) process.stdout.write(`    ${l}\n`);
  }
}
void main();

/** The `envforge` command line: talks to a running EnvForge over its HTTP API. */
import { parseArgs } from "node:util";
import { ApiError, EnvForgeClient } from "./client";
import { importHarbor, importNdjson, type ImportResult } from "./commands/import";
import { importHarborTasks } from "./commands/import-tasks";
import { syncAgentLightning } from "./commands/sync";
import { arenaCommand } from "./commands/arena";
import { LEARNER_IDS, type LearnerId, type ValidatorMode } from "@/lib/arena/types";
import { runDispatch } from "./commands/run-dispatch";
import { cliSettings } from "@/lib/config/cli";

const USAGE = `envforge <command> [options]

Commands:
  import harbor <job-dir> --project <slug> [--generation <n>] [--policy <name>] [--create] [--reward-key <key>]
      One Harbor job folder: a rollout per trial, a terminal-task environment per task.
      --create makes the project when it does not exist (admin key).
      --reward-key picks the reward a rollout is scored by when reward.json holds several
      (default: the only key, else "reward", else the first key; all are kept).
  import harbor-tasks <dir> --project <slug> [--generation <n>]
      Harbor task folders (a dataset folder, or one task): an environment per task with its files
      (task.toml, instruction.md, environment/, tests/, solution/, steps/). Without --generation the
      tasks join the project's pool (generation 0 when the project has none). Re-importing is a no-op.
  import ndjson <file> --project <slug> [--create-environments]
      Rollouts, one JSON object a line (the shape of POST /api/v1/projects/{slug}/rollouts).
  sync agent-lightning --url <store-url> --project <slug> [--key <store key>] [--policy <name>]
                       [--api envforge|agl-v1] [--create-environments]
      Finished rollouts of an Agent Lightning store since the last sync (the cursor is kept per
      project and store URL). --api agl-v1 talks to a LightningStore server's /v1/agl routes.
  arena [--seeds N] [--seed-base N] [--family id[,id]] [--learner id[,id]] [--traps share[,share]] [--quick]
        [--validator shared-charged|none] [--validator-cost N] [--strategies a,b] [--jobs N] [--json <file>] [--upload]
      The curriculum arena: every curriculum strategy on a simulated learner, clean and with traps
      (runs here, no server needed). Prints the strategy x setting table and the goal checks the
      heuristic engineer won and lost; --json writes the full report; --upload sends it to the
      server's Arena page (--server, --token). Several families, learners (default, drift, tangled)
      or trap shares (up to 0.3) make a matrix, one report per cell. --jobs splits the runs over
      worker threads (default: one per core). Defaults: 10 seeds from seed base 1000 (evaluation
      seeds; 0-99 are the tuning seeds), search-agent, learner default, traps 0.15, validator
      shared-charged at 1 rollout a call.

  run-dispatch --dispatch <url> [--policy <name>] [--no-finish] -- <command> [args...]
      The job side of a dispatch (a Ray entrypoint or a Kubernetes container command): fetches the
      dispatch's payload, runs <command> once per environment with the rendered task (stdin and
      ENVFORGE_TASK_JSON), posts each rollout and the progress back, with retries. The key is
      ENVFORGE_API_KEY (set by EnvForge for the job) or --token. The command's last stdout line
      may be JSON {reward, success, trajectory, ...}; else its exit code decides. At the end it
      reports the job finished (the dispatch succeeds, its key stops working); --no-finish leaves
      the dispatch running, for one shard of several.

Options for every command:
  --server <url>   EnvForge's address (ENVFORGE_SERVER, default http://127.0.0.1:3000)
  --token <key>    an API key (ENVFORGE_TOKEN)
  --quiet          no progress output
The last line is a summary; the exit code is non-zero on any failure.`;

/** Print the import summary (details of failures on stderr) and return the exit code. */
function report(result: ImportResult): number {
  const { summary, unreadable } = result;
  for (const n of result.notices ?? []) process.stderr.write(`note: ${n}\n`);
  for (const u of unreadable.slice(0, 20)) process.stderr.write(`unreadable ${u.ref}: ${u.reason}\n`);
  for (const r of summary.rejected.slice(0, 20)) process.stderr.write(`rejected ${r.ref} (${r.code}): ${r.message}\n`);
  const hidden = unreadable.length + summary.rejected.length - Math.min(20, unreadable.length) - Math.min(20, summary.rejected.length);
  if (hidden > 0) process.stderr.write(`… and ${hidden} more\n`);
  const rejected = summary.rejected.length + unreadable.length;
  console.log(`imported ${summary.accepted} rollouts (${summary.duplicates} duplicates, ${rejected} rejected)`);
  return rejected > 0 ? 1 : 0;
}

/** Run the CLI with argv (without node and script); returns the exit code. */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      server: { type: "string" },
      token: { type: "string" },
      project: { type: "string" },
      generation: { type: "string" },
      "reward-key": { type: "string" },
      policy: { type: "string" },
      create: { type: "boolean" },
      "create-environments": { type: "boolean" },
      url: { type: "string" },
      dispatch: { type: "string" },
      "no-finish": { type: "boolean" },
      key: { type: "string" },
      api: { type: "string" },
      quiet: { type: "boolean" },
      seeds: { type: "string" },
      quick: { type: "boolean" },
      json: { type: "string" },
      family: { type: "string" },
      strategies: { type: "string" },
      workers: { type: "string" },
      jobs: { type: "string" },
      "seed-base": { type: "string" },
      learner: { type: "string" },
      traps: { type: "string" },
      validator: { type: "string" },
      "validator-cost": { type: "string" },
      upload: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length === 0) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (positionals[0] === "run-dispatch") {
    const env = cliSettings();
    const dispatchUrl = values.dispatch ?? env.ENVFORGE_PAYLOAD_URL;
    if (!dispatchUrl) throw new UsageError("--dispatch <url> is required (the payload URL the job was given, e.g. $ENVFORGE_PAYLOAD_URL).");
    const command = positionals.slice(1);
    if (command.length === 0)
      throw new UsageError("Give the command to run after --, e.g. envforge run-dispatch --dispatch <url> -- python3 agent.py");
    const r = await runDispatch({
      dispatch: dispatchUrl,
      command,
      key: values.token ?? env.ENVFORGE_API_KEY ?? env.ENVFORGE_TOKEN,
      policy: values.policy,
      quiet: values.quiet,
      finish: !values["no-finish"],
    });
    console.log(
      `ran ${r.environments} environments: ${r.succeeded} finished, ${r.failed} errored; ${r.posted} rollouts posted, ${r.rejected} rejected`,
    );
    return r.rejected > 0 ? 1 : 0;
  }
  if (positionals[0] === "arena") {
    const whole = (name: string, raw: string | undefined, min: number): number | undefined => {
      if (raw === undefined) return undefined;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number >= ${min} (got ${raw}).`);
      return n;
    };
    if (values.json === "") throw new UsageError("--json needs a file name.");
    const list = (raw: string | undefined) =>
      raw
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    const traps = list(values.traps)?.map((raw) => {
      const share = Number(raw);
      if (!(share > 0 && share <= 0.3)) throw new UsageError(`--traps takes shares in (0, 0.3] (got ${raw}).`);
      return share;
    });
    if (values.validator !== undefined && values.validator !== "shared-charged" && values.validator !== "none")
      throw new UsageError(`--validator is shared-charged or none (got ${values.validator}).`);
    const learners = list(values.learner);
    const unknownLearner = learners?.find((l) => !(LEARNER_IDS as readonly string[]).includes(l));
    if (unknownLearner) throw new UsageError(`--learner is one of ${LEARNER_IDS.join(", ")} (got ${unknownLearner}).`);
    const { report: result, code } = await arenaCommand({
      seeds: whole("seeds", values.seeds, 1) ?? 10,
      seedBase: whole("seed-base", values["seed-base"], 0),
      quick: values.quick,
      json: values.json,
      families: list(values.family),
      learners: learners as LearnerId[] | undefined,
      trapShares: traps,
      validator: values.validator as ValidatorMode | undefined,
      validatorCost: whole("validator-cost", values["validator-cost"], 0),
      strategies: list(values.strategies),
      workers: whole("jobs", values.jobs, 0) ?? whole("workers", values.workers, 0),
      quiet: values.quiet,
    });
    if (values.upload) {
      const env = cliSettings();
      const uploader = new EnvForgeClient({ server: values.server ?? env.ENVFORGE_SERVER, token: values.token ?? env.ENVFORGE_TOKEN });
      const stored = await uploader.request<{ id: number }>("POST", "/api/v1/arena/reports", { json: result });
      console.log(`uploaded as arena run ${stored.id}: ${uploader.server}/arena`);
    }
    return code;
  }
  const env = cliSettings();
  const client = new EnvForgeClient({ server: values.server ?? env.ENVFORGE_SERVER, token: values.token ?? env.ENVFORGE_TOKEN });
  const [command, sub, target] = positionals;
  const needProject = () => {
    if (!values.project) throw new UsageError("--project <slug> is required.");
    return values.project;
  };
  const generationOption = () => {
    if (values.generation === undefined) return undefined;
    const generation = Number(values.generation);
    if (!Number.isInteger(generation) || generation < 0)
      throw new UsageError(`--generation must be a non-negative integer (got ${values.generation}).`);
    return generation;
  };
  if (command === "import" && sub === "harbor-tasks") {
    if (!target) throw new UsageError("envforge import harbor-tasks needs a folder of Harbor task folders.");
    const s = await importHarborTasks(client, target, { project: needProject(), generation: generationOption(), quiet: values.quiet });
    for (const r of s.rejected.slice(0, 20)) process.stderr.write(`rejected ${r.task}: ${r.message}\n`);
    console.log(
      `imported ${s.created.length + s.attached.length} tasks (${s.created.length} new, ${s.attached.length} joined to ` +
        `their rollouts, ${s.unchanged.length} unchanged, ${s.rejected.length} rejected); ${s.files.total} files, ` +
        `${s.files.newBlobs} new contents`,
    );
    return s.rejected.length > 0 ? 1 : 0;
  }
  if (command === "import" && (sub === "harbor" || sub === "ndjson")) {
    if (!target) throw new UsageError(`envforge import ${sub} needs a ${sub === "harbor" ? "job folder" : "file"}.`);
    if (sub === "harbor") {
      return report(
        await importHarbor(client, target, {
          project: needProject(),
          generation: generationOption(),
          policy: values.policy,
          create: values.create,
          quiet: values.quiet,
          rewardKey: values["reward-key"],
        }),
      );
    }
    return report(
      await importNdjson(client, target, {
        project: needProject(),
        createEnvironments: values["create-environments"],
        quiet: values.quiet,
      }),
    );
  }
  if (command === "sync" && sub === "agent-lightning") {
    if (!values.url) throw new UsageError("--url <store-url> is required.");
    if (values.api && values.api !== "envforge" && values.api !== "agl-v1")
      throw new UsageError(`--api must be envforge or agl-v1 (got ${values.api}).`);
    return report(
      await syncAgentLightning(client, {
        project: needProject(),
        url: values.url,
        key: values.key ?? env.AGL_API_KEY,
        policy: values.policy,
        api: values.api as "envforge" | "agl-v1" | undefined,
        createEnvironments: values["create-environments"],
        quiet: values.quiet,
      }),
    );
  }
  throw new UsageError(`Unknown command '${positionals.join(" ")}'.`);
}

class UsageError extends Error {}

const isMain = process.argv[1] && /(envforge(\.mjs)?|cli[/\\]main\.ts)$/.test(process.argv[1]);
if (isMain) {
  run(process.argv.slice(2))
    .then((code) => process.exit(code))
    .catch((err) => {
      if (err instanceof UsageError) {
        console.error(`${err.message}\n\n${USAGE}`);
        process.exit(2);
      }
      console.error(`envforge: ${err instanceof ApiError || err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}

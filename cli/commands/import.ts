/** `envforge import harbor <job-dir>` and `envforge import ndjson <file>`. */
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { importLimits } from "@/lib/config/import-limits";
import { harborRolloutInput, openHarborJob, readHarborTrials } from "@/lib/ingest/harbor";
import { SafeTree } from "@/lib/ingest/safe-tree";
import { ApiError, type EnvForgeClient } from "../client";
import { Progress } from "../progress";
import { uploadRollouts, type UploadItem, type UploadSummary } from "../upload";

export interface ImportResult {
  summary: UploadSummary;
  /** Trials or lines that never reached the server (unreadable). */
  unreadable: { ref: string; reason: string }[];
  /** What the user should know that is not a failure (e.g. a store that was restarted). */
  notices?: string[];
}

/** Make sure the project exists; with `create`, make it (admin key needed). */
async function ensureProject(client: EnvForgeClient, slug: string, create: { family: string; name: string } | null) {
  try {
    await client.request("GET", `/api/v1/projects/${encodeURIComponent(slug)}`);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
    if (!create)
      throw new ApiError(
        `Project '${slug}' does not exist: create it first (POST /api/v1/projects), or pass --create where the command offers it.`,
        404,
      );
    await client.request("POST", "/api/v1/projects", { json: { slug, name: create.name, family: create.family } });
    process.stderr.write(`created project '${slug}' (${create.family})\n`);
  }
}

/** Import one Harbor job folder: one rollout per trial, environments created from the tasks. */
export async function importHarbor(
  client: EnvForgeClient,
  jobDir: string,
  opts: { project: string; generation?: number; policy?: string; create?: boolean; quiet?: boolean; rewardKey?: string },
): Promise<ImportResult> {
  if (!fs.existsSync(jobDir) || !fs.statSync(jobDir).isDirectory())
    throw new Error(`${jobDir} is not a folder: pass a Harbor job directory (it holds config.json and one folder per trial).`);
  // links in the folder are never followed; files over ENVFORGE_IMPORT_MAX_FILE_MB refuse their trial
  const tree = await SafeTree.open(jobDir, { maxFileBytes: importLimits().maxFileBytes });
  const job = await openHarborJob(jobDir, { tree, rewardKey: opts.rewardKey });
  if (job.trialDirs.length === 0 && job.unreadable.length === 0) throw new Error(`${jobDir} holds no Harbor trial folders.`);
  await ensureProject(client, opts.project, opts.create ? { family: "terminal-task", name: job.job.name || path.basename(jobDir) } : null);
  const unreadable = [...job.unreadable];
  let read = 0;
  // each trial is sent as it is read (and its objects dropped once it is a JSON line): the first requests are stored
  // while later trials are still read, and the job is never held whole
  const items = async function* (): AsyncIterable<UploadItem> {
    for await (const r of readHarborTrials(job.trialDirs, { tree, rewardKey: opts.rewardKey, onProgress: (done) => (read = done) })) {
      if ("reason" in r) unreadable.push(r);
      else
        yield {
          ref: r.trial.trialName,
          json: JSON.stringify(harborRolloutInput(r.trial, { generation: opts.generation, policy: opts.policy })),
        };
    }
  };
  const sending = new Progress("importing", job.trialDirs.length, opts.quiet);
  const summary = await uploadRollouts(client, opts.project, items(), {
    createEnvironments: true,
    onProgress: (s) => sending.update(s.sent, `${read} read, ${s.duplicates} dup, ${s.rejected.length} rejected`),
  });
  sending.done();
  unreadable.sort((a, b) => (a.trialDir < b.trialDir ? -1 : 1));
  return { summary, unreadable: unreadable.map((u) => ({ ref: path.basename(u.trialDir), reason: u.reason })) };
}

/** Lines of an NDJSON file as upload items named by their line number (blank lines skipped). */
async function* ndjsonFileItems(
  file: string,
  onLine: (n: number) => void,
  malformed: { ref: string; reason: string }[],
): AsyncIterable<UploadItem> {
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  let n = 0;
  for await (const raw of rl) {
    n++;
    onLine(n);
    const line = raw.trim();
    if (!line) continue;
    // re-serialise so a line never carries a newline into the batch; malformed lines are reported here
    try {
      yield { ref: `line ${n}`, json: JSON.stringify(JSON.parse(line)) };
    } catch (err) {
      malformed.push({ ref: `line ${n}`, reason: `not valid JSON: ${(err as Error).message}` });
    }
  }
}

/** Import an NDJSON file of rollouts (API.md's rollout shape). */
export async function importNdjson(
  client: EnvForgeClient,
  file: string,
  opts: { project: string; createEnvironments?: boolean; quiet?: boolean },
): Promise<ImportResult> {
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new Error(`${file} is not a file.`);
  await ensureProject(client, opts.project, null);
  const size = fs.statSync(file).size;
  const progress = new Progress("importing", null, opts.quiet);
  const malformed: { ref: string; reason: string }[] = [];
  let lines = 0;
  const summary = await uploadRollouts(
    client,
    opts.project,
    ndjsonFileItems(file, (n) => (lines = n), malformed),
    {
      createEnvironments: opts.createEnvironments,
      onProgress: (s) => progress.update(s.sent, `lines ${lines}, ${(size / 1e6).toFixed(1)} MB file`),
    },
  );
  progress.done();
  return { summary, unreadable: malformed };
}

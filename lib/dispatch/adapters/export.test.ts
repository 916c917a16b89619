import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { afterAll, describe, expect, it } from "vitest";
import { fixturesDir } from "@/lib/ingest/fixtures-path";
import { exportAdapter, exportConfigSchema, exportFolderName, harborJobConfig } from "./export";
import { deliveryContext, samplePayload } from "./test-payload";

const root = mkdtempSync(path.join(os.tmpdir(), "envforge-export-test-"));
// export targets write under one folder (ENVFORGE_EXPORT_DIR): this test's
process.env.ENVFORGE_EXPORT_DIR = root;
afterAll(() => rmSync(root, { recursive: true, force: true }));

const readJsonl = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

function toArrayBuffer(buffer: Buffer): ArrayBuffer {
  return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
}

describe("export adapter", () => {
  it("writes every file, readable back, with a manifest of their hashes", async () => {
    const payload = samplePayload();
    const directory = path.join(root, "exports");
    const result = await exportAdapter.deliver(
      deliveryContext(payload, {
        directory,
        harbor: {
          nAttempts: 3,
          nConcurrentTrials: 8,
          datasetName: "terminal-bench",
          agents: [{ name: "terminus-2", model_name: "hosted_vllm/tmax-9b" }],
        },
      }),
    );
    const folder = path.join(directory, `tb-curriculum-g3-${payload.dispatchId.slice(0, 8)}`);
    expect(exportFolderName(payload)).toBe(path.basename(folder));
    expect(result).toMatchObject({ status: "succeeded", externalId: folder });
    expect(readdirSync(folder).sort()).toEqual([
      "agent-lightning-enqueue.json",
      "agent-lightning-rollouts.json",
      "agent-lightning.jsonl",
      "envforge_reward.py",
      "environments.jsonl",
      "harbor-job.json",
      "manifest.json",
      "verl.parquet",
    ]);

    const environments = readJsonl(path.join(folder, "environments.jsonl"));
    expect(environments).toEqual(payload.environments);

    const parquet = toArrayBuffer(readFileSync(path.join(folder, "verl.parquet")));
    // weights 0.5 / 0.3 / 0.2 over 4 rows per environment: 6, 4 and 2 rows (largest remainder)
    expect(Number(parquetMetadata(parquet).num_rows)).toBe(12);
    const rows = (await parquetReadObjects({ file: parquet })) as Record<string, any>[];
    expect(rows.map((r) => r.extra_info.environment_key)).toEqual([
      ...Array(6).fill("g3-0001"),
      ...Array(4).fill("g3-0002"),
      ...Array(2).fill("g3-0003"),
    ]);
    rows.forEach((row, i) => {
      const env = payload.environments.find((e) => e.key === row.extra_info.environment_key)!;
      expect(row.data_source).toBe("envforge/terminal-task");
      expect(row.ability).toBe("terminal-task");
      expect(row.prompt.map((m: { role: string }) => m.role)).toEqual(["system", "user"]);
      expect(row.prompt[1].content).toContain(`"${env.config.task_name}"`);
      expect(row.reward_model.style).toBe("rule");
      expect(JSON.parse(row.reward_model.ground_truth)).toEqual({
        family: "terminal-task",
        answer_format: "sandbox-verifier",
        task_name: env.config.task_name,
        source: "terminal-bench",
      });
      expect(row.extra_info).toMatchObject({ environment_key: env.key, config_hash: env.configHash, weight: env.weight, split: "train" });
      expect(Number(row.extra_info.index)).toBe(i);
    });

    const tasks = readJsonl(path.join(folder, "agent-lightning.jsonl"));
    expect(tasks).toEqual(
      payload.environments.map((e) => ({
        id: e.key,
        input: e.config,
        metadata: { environment_key: e.key, generation: 3, weight: e.weight, family: "terminal-task", project: "tb-curriculum" },
      })),
    );

    const harbor = JSON.parse(readFileSync(path.join(folder, "harbor-job.json"), "utf8"));
    expect(harbor).toMatchObject({
      job_name: "tb-curriculum-g3",
      jobs_dir: "jobs",
      n_attempts: 3,
      n_concurrent_trials: 8,
      agents: [{ name: "terminus-2", model_name: "hosted_vllm/tmax-9b" }],
      tasks: [],
    });
    // tasks known by name only (no files, no git commit) run from the named registry dataset
    // the two evolved ones have no files to run: left out, and said so in the manifest
    expect(harbor.datasets).toEqual([expect.objectContaining({ name: "terminal-bench", path: null, task_names: ["fix-git"] })]);
    // same keys as a real Harbor job config (when the shared fixtures are there)
    const fixtures = fixturesDir();
    if (fixtures) {
      const real = JSON.parse(readFileSync(path.join(fixtures, "harbor-tb2/tmax-9b/terminal-bench-2-0/config.json"), "utf8"));
      expect(Object.keys(harbor).sort()).toEqual(Object.keys(real).sort());
      expect(Object.keys(harbor.datasets[0]).sort()).toEqual(Object.keys(real.datasets[0]).sort());
      // that job is from an older Harbor: its mounts_json is now mounts, suppress_override_warnings is gone (both warn)
      const { mounts_json: _mountsJson, suppress_override_warnings: _suppress, ...current } = real.environment;
      expect(Object.keys(harbor.environment).sort()).toEqual([...Object.keys(current), "mounts"].sort());
      expect(Object.keys(harbor.retry).sort()).toEqual(Object.keys(real.retry).sort());
    }

    const manifest = JSON.parse(readFileSync(path.join(folder, "manifest.json"), "utf8"));
    expect(manifest.counts).toEqual({ environments: 3, verlRows: 12, agentLightningTasks: 3, harborTasks: 1, harborDatasetTasks: 0 });
    expect(manifest.warnings).toEqual([
      expect.stringMatching(/^g3-0002: not in harbor-job.json \(an evolved task without files/),
      expect.stringMatching(/^g3-0003: /),
    ]);
    expect(manifest.files.map((f: { name: string }) => f.name).sort()).toEqual([
      "agent-lightning-enqueue.json",
      "agent-lightning-rollouts.json",
      "agent-lightning.jsonl",
      "envforge_reward.py",
      "environments.jsonl",
      "harbor-job.json",
      "verl.parquet",
    ]);
    for (const f of manifest.files as { name: string; bytes: number; sha256: string }[]) {
      const content = readFileSync(path.join(folder, f.name));
      expect(content.length).toBe(f.bytes);
      expect(createHash("sha256").update(content).digest("hex")).toBe(f.sha256);
    }
  });

  it("a resend replaces the same folder whole and leaves no temporary folders", async () => {
    const payload = samplePayload();
    const directory = path.join(root, "resend");
    const first = await exportAdapter.deliver(deliveryContext(payload, { directory }));
    const changed = { ...payload, environments: payload.environments.slice(0, 1) };
    const second = await exportAdapter.deliver(deliveryContext(changed, { directory, parquet: false }, null, 2));
    expect(second.externalId).toBe(first.externalId);
    expect(readdirSync(directory)).toEqual([path.basename(first.externalId!)]);
    const folder = second.externalId!;
    // no harbor.agents in this target: no harbor-job.json (never agents: []), and the manifest says why
    expect(readdirSync(folder).sort()).toEqual([
      "agent-lightning-enqueue.json",
      "agent-lightning-rollouts.json",
      "agent-lightning.jsonl",
      "envforge_reward.py",
      "environments.jsonl",
      "manifest.json",
      "verl.json",
    ]);
    expect(JSON.parse(readFileSync(path.join(folder, "manifest.json"), "utf8")).warnings).toContainEqual(
      expect.stringMatching(/set harbor.agents/),
    );
    expect(readJsonl(path.join(folder, "environments.jsonl"))).toHaveLength(1);
    // verl's RLHFDataset reads only *.parquet and *.json (the latter with HF datasets' JSON Lines reader)
    const [row] = readJsonl(path.join(folder, "verl.json"));
    expect(row).toMatchObject({
      data_source: "envforge/terminal-task",
      ability: "terminal-task",
      extra_info: { environment_key: "g3-0001", index: 0, split: "train" },
    });
  });

  it("writes no Harbor job for a family that has no Harbor tasks", async () => {
    const base = samplePayload();
    const payload = {
      ...base,
      project: { ...base.project, slug: "lake", family: "frozenlake-mapf" },
      environments: [{ ...base.environments[0], config: { grid: { size: 4 }, agents: 1 } }],
    };
    const result = await exportAdapter.deliver(deliveryContext(payload, { directory: path.join(root, "lake") }));
    expect(readdirSync(result.externalId!).sort()).toEqual([
      "agent-lightning-enqueue.json",
      "agent-lightning-rollouts.json",
      "agent-lightning.jsonl",
      "envforge_reward.py",
      "environments.jsonl",
      "manifest.json",
      "verl.parquet",
    ]);
    const rows = (await parquetReadObjects({ file: toArrayBuffer(readFileSync(path.join(result.externalId!, "verl.parquet"))) })) as Record<
      string,
      any
    >[];
    // a config the family's schema rejects has no task instance: its description stands in
    expect(rows[0].prompt[0].content).toContain("grid.size: 4");
  });

  it("runs a git-pinned task from its folder in the repository, which Harbor sparse-checks out", () => {
    const base = samplePayload();
    const git = { git_url: "https://example.com/tasks.git", git_commit: "abc" };
    const payload = {
      ...base,
      environments: [
        {
          ...base.environments[0],
          weight: 1,
          parentKey: null,
          config: { task_name: "fix-git", ...git, git_path: "tasks/terminal/fix-git" },
        },
        { ...base.environments[1], weight: 1, parentKey: null, config: { task_name: "regex-log", ...git } },
      ],
    };
    const settings = exportConfigSchema.parse({ directory: "/x", harbor: { agents: [{ name: "oracle" }] } }).harbor;
    const job = harborJobConfig(payload, settings)!;
    expect((job.tasks as { path: string }[]).map((t) => t.path)).toEqual(["tasks/terminal/fix-git", "regex-log"]);
  });

  it("finds tasks in a package dataset (org/name) by their package names, pinned by ref", () => {
    const base = samplePayload();
    const payload = {
      ...base,
      environments: [
        { ...base.environments[0], weight: 1, parentKey: null, config: { task_name: "fix-git", package_name: "tb/fix-git" } },
        { ...base.environments[1], weight: 1, parentKey: null, config: { task_name: "regex-log" } },
      ],
    };
    const harbor = { agents: [{ name: "oracle" }], datasetName: "terminal-bench/terminal-bench-2", datasetVersion: "3" };
    const job = harborJobConfig(payload, exportConfigSchema.parse({ directory: "/x", harbor }).harbor)!;
    // Harbor matches task_names (fnmatch) against a package task's "org/name" and reads the package at `ref`, never `version`
    expect(job.datasets).toEqual([
      expect.objectContaining({
        name: "terminal-bench/terminal-bench-2",
        version: null,
        ref: "3",
        task_names: ["tb/fix-git", "*/regex-log"],
      }),
    ]);
    // a registry dataset (no '/') keeps version and the plain names
    const registry = harborJobConfig(
      payload,
      exportConfigSchema.parse({ directory: "/x", harbor: { ...harbor, datasetName: "tb" } }).harbor,
    )!;
    expect(registry.datasets).toEqual([expect.objectContaining({ version: "3", ref: null, task_names: ["fix-git", "regex-log"] })]);
  });

  it("checks its config; an unwritable directory is not retryable", async () => {
    expect(exportAdapter.checkConfig({ directory: "/data/exports" })).toEqual([]);
    expect(exportAdapter.checkConfig({}).map((e) => e.path)).toEqual(["directory"]);
    // Harbor's EnvironmentType enum (no podman): anything else would make a harbor-job.json Harbor refuses
    expect(exportAdapter.checkConfig({ directory: "/data/exports", harbor: { environmentType: "podman" } })).toEqual([
      { path: "harbor.environmentType", message: expect.stringMatching(/^must be one of Harbor's environment types: docker, daytona/) },
    ]);
    expect(exportAdapter.checkConfig({ directory: "/data/exports", harbor: { environmentType: "modal" } })).toEqual([]);
    const file = path.join(root, "a-file");
    rmSync(file, { force: true });
    writeFileSync(file, "x");
    const error = await exportAdapter
      .deliver(deliveryContext(samplePayload(), { directory: path.join(file, "sub") }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "DeliveryError", retryable: false });
  });
});

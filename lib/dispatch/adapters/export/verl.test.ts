/**
 * The verl export trains as it is: every row's prompt is the rendered task, and envforge_reward.py
 * (run with python3, verl's custom_reward_function signature from verl/trainer/ppo/reward.py ->
 * compute_score(data_source, solution_str, ground_truth, extra_info)) scores each row's reference
 * 1.0 and wrong answers 0.0.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parquetReadObjects } from "hyparquet";
import { afterAll, describe, expect, it } from "vitest";
import { builtinFamilies } from "@/lib/families/registry";
import { createRng } from "@/lib/families/rng";
import { writeExport, exportConfigSchema } from "../export";
import { samplePayload } from "../test-payload";
import { apportionRows, verlPromptBudget, type VerlRow } from "./verl";

const root = mkdtempSync(path.join(os.tmpdir(), "envforge-verl-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Row = {
  data_source: string;
  prompt: { role: string; content: string }[];
  reward_model: { ground_truth: string };
  extra_info: Record<string, unknown>;
};

/** Scores of {data_source, solution_str, ground_truth} rows by the exported envforge_reward.py, run by python3. */
function pythonScores(folder: string, rows: { data_source: string; solution_str: string; ground_truth: string }[]): number[] {
  const file = path.join(folder, `answers-${rows.length}-${Math.random().toString(16).slice(2)}.jsonl`);
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n"));
  const out = execFileSync("python3", [path.join(folder, "envforge_reward.py"), file], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return out.trim().split("\n").map(Number);
}

async function exportFamily(family: keyof typeof builtinFamilies, count: number) {
  const definition = builtinFamilies[family];
  const rng = createRng(`verl-test:${family}`);
  const base = samplePayload();
  const payload = {
    ...base,
    project: { ...base.project, slug: family, family },
    environments: Array.from({ length: count }, (_, i) => ({
      ...base.environments[0],
      key: `e${i}`,
      configHash: `h${i}`,
      weight: 1,
      config: definition.sample(rng) as Record<string, unknown>,
    })),
  };
  const { folder } = await writeExport(
    payload,
    exportConfigSchema.parse({ directory: path.join(root, family), verlRowsPerEnvironment: 1 }),
  );
  const buffer = readFileSync(path.join(folder, "verl.parquet"));
  const rows = (await parquetReadObjects({
    file: buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer,
  })) as Row[];
  return { folder, rows, payload };
}

// wrong answers; frozenlake's is a plan that only waits, leaving every agent on its start (built per row below)
const wrong = { "persuasion-game": "I cannot tell.", "search-agent": "<answer>Nobody Known</answer>" };

describe("verl export: rendered tasks scored by envforge_reward.py", () => {
  for (const family of ["frozenlake-mapf", "persuasion-game", "search-agent"] as const) {
    it(`${family}: the prompt poses the task, the reference scores 1.0 and a wrong answer 0.0`, async () => {
      const { folder, rows } = await exportFamily(family, 12);
      expect(rows).toHaveLength(12);
      const truths = rows.map((r) => JSON.parse(r.reward_model.ground_truth) as Record<string, any>);
      for (const [i, row] of rows.entries()) {
        expect(row.data_source).toBe(`envforge/${family}`);
        expect(row.prompt.map((m) => m.role)).toEqual(["system", "user"]);
        expect(row.prompt[1].content).not.toContain("Configuration:");
        expect(truths[i].family).toBe(family);
        expect(typeof truths[i].reference).toBe("string");
      }
      if (family === "frozenlake-mapf") {
        // the policy sees the map and every agent's start and goal
        expect(rows[0].prompt[1].content).toContain(truths[0].map.join("\n"));
        expect(rows[0].prompt[1].content).toContain(`- a: start (${truths[0].agents[0].start.join(", ")})`);
      }
      if (family === "persuasion-game") expect(rows[0].prompt[1].content).toMatch(/decision maker/);
      if (family === "search-agent") expect(rows[0].prompt[1].content).toMatch(/Question: who is the /);
      const asked = rows.flatMap((row, i) => [
        {
          data_source: row.data_source,
          solution_str: `Let me think.\n<answer>\n${truths[i].reference}\n</answer>`,
          ground_truth: row.reward_model.ground_truth,
        },
        {
          data_source: row.data_source,
          solution_str:
            family === "frozenlake-mapf"
              ? `<answer>\n${truths[i].agents.map((a: { name: string }) => `${a.name}: W`).join("\n")}\n</answer>`
              : wrong[family as keyof typeof wrong],
          ground_truth: row.reward_model.ground_truth,
        },
      ]);
      const scores = pythonScores(folder, asked);
      expect(scores.filter((_, k) => k % 2 === 0)).toEqual(Array(12).fill(1));
      expect(scores.filter((_, k) => k % 2 === 1)).toEqual(Array(12).fill(0));
    }, 30_000); // a python3 child process per family: slow on a busy machine, not a speed check
  }

  it("frozenlake plans are checked on the map: holes, swaps under block_both, ending off the goal", async () => {
    const { folder } = await exportFamily("frozenlake-mapf", 1);
    const gt = (agents: object[], collision: string, map = ["aHA", "...", "..."]) =>
      JSON.stringify({ family: "frozenlake-mapf", map, agents, max_steps: 6, collision });
    const one = gt([{ name: "a", start: [0, 0], goal: [0, 2] }], "block_both");
    const two = (collision: string) =>
      gt(
        [
          { name: "a", start: [1, 0], goal: [1, 1] },
          { name: "b", start: [1, 1], goal: [1, 0] },
        ],
        collision,
        ["...", "...", "..."],
      );
    const ask = (solution_str: string, ground_truth: string) => ({ data_source: "envforge/frozenlake-mapf", solution_str, ground_truth });
    expect(
      pythonScores(folder, [
        ask("<answer>a: DRRU</answer>", one), // around the hole
        ask("<answer>a: RR</answer>", one), // through the hole
        ask("<answer>a: DRRUD</answer>", one), // leaves the goal again
        ask("<answer>a: DRRUWWW</answer>", one), // over the step budget
        ask("<answer>a: R\nb: L</answer>", two("block_both")), // swap
        ask("<answer>a: R\nb: L</answer>", two("soft")),
      ]),
    ).toEqual([1, 0, 0, 0, 0, 1]);
  });

  it("persuasion beliefs are checked against the decision maker's equation", async () => {
    const { folder } = await exportFamily("persuasion-game", 1);
    // Bayes: 0.5 with LR 0.8/0.2 = 4 -> 0.8; then a contradicting signal (LR 1/4) -> 0.5
    const gt = (model: string, params: object = {}) =>
      JSON.stringify({
        family: "persuasion-game",
        decision_model: model,
        params,
        prior: 0.5,
        evidence_strength: 0.8,
        target_belief: 0.9,
        signals: [1, -1],
        tolerance: 0.005,
      });
    const ask = (solution_str: string, ground_truth: string) => ({ data_source: "envforge/persuasion-game", solution_str, ground_truth });
    const right = "<answer>\nround 1: supports -> 0.8000\nround 2: contradicts -> 0.5000\nreached: no\n</answer>";
    const [bayes, grether, offByOne, wrongEvidence] = pythonScores(folder, [
      ask(right, gt("bayesian")),
      // Grether alpha = beta = 0.5: logistic(0.5 ln 4) = 2/3, then logistic(-0.5 ln 2) = 0.414: only "reached: no" holds
      ask(right, gt("grether", { alpha: 0.5, beta: 0.5 })),
      ask("<answer>\nround 1: supports -> 0.8200\nround 2: contradicts -> 0.5000\nreached: no\n</answer>", gt("bayesian")),
      ask("<answer>\nround 1: contradicts -> 0.8000\nround 2: contradicts -> 0.5000\nreached: no\n</answer>", gt("bayesian")),
    ]);
    expect(bayes).toBe(1);
    expect(grether).toBeCloseTo(1 / 3, 6);
    expect(offByOne).toBeCloseTo(2 / 3, 6);
    expect(wrongEvidence).toBeCloseTo(2 / 3, 6);
  });

  it("search answers: exact match or token F1 as the config says", async () => {
    const { folder } = await exportFamily("search-agent", 1);
    const gt = (answer_match: string) => JSON.stringify({ family: "search-agent", answer_match, reference: "Ada Lind" });
    const ask = (solution_str: string, ground_truth: string) => ({ data_source: "envforge/search-agent", solution_str, ground_truth });
    const [exact, exactPartial, f1Partial] = pythonScores(folder, [
      ask("<answer>ada lind.</answer>", gt("exact")),
      ask("<answer>Ada</answer>", gt("exact")),
      ask("<answer>Ada</answer>", gt("f1")),
    ]);
    expect([exact, exactPartial]).toEqual([1, 0]);
    expect(f1Partial).toBeCloseTo(2 / 3, 6);
  });

  it("terminal-task rows cannot be scored by text: the reward function says so", async () => {
    const { folder } = await exportFamily("persuasion-game", 1);
    const run = () =>
      pythonScores(folder, [
        { data_source: "envforge/terminal-task", solution_str: "done", ground_truth: JSON.stringify({ family: "terminal-task" }) },
      ]);
    expect(run).toThrow(/sandbox/);
  });

  it("apportions rows to the curriculum weights (largest remainder, at least one row, weight 0 drops)", () => {
    expect(apportionRows([0.5, 0.3, 0.2], 4)).toEqual([6, 4, 2]);
    expect(apportionRows([3, 1], 2)).toEqual([3, 1]);
    expect(apportionRows([100, 1, 0], 2)).toEqual([3, 1, 0]);
    expect(apportionRows([0, 0], 4)).toEqual([0, 0]);
  });

  it("tells verl a data.max_prompt_length every exported prompt fits (its default 512 stops the run at a longer one)", async () => {
    const { folder, rows } = await exportFamily("persuasion-game", 6);
    const manifest = JSON.parse(readFileSync(path.join(folder, "manifest.json"), "utf8"));
    const bytes = Math.max(...rows.map((r) => r.prompt.reduce((n, m) => n + Buffer.byteLength(m.content, "utf8"), 0)));
    expect(manifest.verl).toMatchObject({ file: "verl.parquet", longestPromptBytes: bytes });
    expect(manifest.verl.maxPromptLength % 256).toBe(0);
    expect(manifest.verl.maxPromptLength).toBeGreaterThan(bytes); // a token is at least a byte: bytes bound the tokens
    expect(manifest.verl.override).toBe(`data.max_prompt_length=${manifest.verl.maxPromptLength}`);
    // long and non-ASCII prompts: bytes, not characters, plus room for the chat template
    const row = (content: string) => ({ prompt: [{ role: "user", content }] }) as VerlRow;
    expect(verlPromptBudget([row("é".repeat(1000)), row("short")])).toEqual({
      longestPromptChars: 1000,
      longestPromptBytes: 2000,
      maxPromptLength: 2304,
    });
  });
});

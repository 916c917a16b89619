import { describe, expect, it } from "vitest";
import { applyTaskTomlFields, nameTaskTomlFor, parseTaskToml, taskTomlFields } from "./task-toml";

// Rules from Harbor's TaskConfig: harbor/src/harbor/models/task/config.py
describe("task.toml", () => {
  it("reads the fields Harbor honours, mapping legacy memory/storage/allow_internet as Harbor does", () => {
    const { config } = parseTaskToml(
      `version = "1.0"\n[task]\nname = "org/t"\n[metadata]\ndifficulty = "hard"\ntags = ["a", 1]\n[agent]\ntimeout_sec = ` +
        `90.6\n[environment]\nmemory = "2G"\nstorage = "512M"\nallow_internet = false\ncpus = 2\n[[steps]]\nname = "one"\n`,
    );
    expect(taskTomlFields(config)).toEqual({
      package_name: "org/t",
      difficulty: "hard",
      tags: ["a"],
      agent_timeout_sec: 91,
      memory_mb: 2048,
      storage_mb: 512,
      cpus: 2,
      allow_internet: false,
      steps: ["one"],
    });
    expect(taskTomlFields(parseTaskToml(`[environment]\nnetwork_mode = "no-network"\n`).config).allow_internet).toBe(false);
  });

  it("refuses what Harbor refuses, naming the field", () => {
    const bad = (text: string) => () => parseTaskToml(text);
    expect(bad(`[task]\nname = "no-slash"\n`)).toThrow(/task\.name: must be 'org\/name'/);
    expect(bad(`[task]\nname = "a/../b"\n`)).toThrow(/task\.name/);
    expect(bad(`[environment]\ncpus = 1.5\n`)).toThrow(/environment\.cpus: must be a whole number/);
    expect(bad(`[environment]\nmemory = "lots"\n`)).toThrow(/environment\.memory/);
    expect(bad(`[verifier]\nenvironment_mode = "shared"\n[verifier.environment]\ncpus = 1\n`)).toThrow(/verifier\.environment_mode/);
    expect(bad(`[[steps]]\nname = "a"\n[[steps]]\nname = "a"\n`)).toThrow(/step name 'a' appears twice/);
    expect(bad(`multi_step_reward_strategy = "max"\n`)).toThrow(/multi_step_reward_strategy: must be mean or final/);
    expect(bad(`a = = 1`)).toThrow(/not valid TOML \(line 1\)/);
    // unknown keys pass, as in Harbor's models
    expect(() => parseTaskToml(`future_key = 1\n[environment]\nfuture = true\n`)).not.toThrow();
  });

  it("changes honoured fields and keeps every other key", () => {
    const text =
      `schema_version = "1.1"\n[task]\nname = "o/t"\n[agent]\ntimeout_sec = 900.0\nuser = "me"\n[environment]\nmemory = ` +
      `"4G"\n[verifier.env]\nK = "v"\n`;
    const out = parseTaskToml(applyTaskTomlFields(text, { agent_timeout_sec: 600, memory_mb: 1024, allow_internet: false })).raw as Record<
      string,
      Record<string, unknown>
    >;
    expect(out.agent).toEqual({ timeout_sec: 600, user: "me" });
    expect(out.environment).toEqual({ memory_mb: 1024, network_mode: "no-network" });
    expect(out.verifier).toEqual({ env: { K: "v" } });
    expect(out.schema_version).toBe("1.1");
  });

  it("names an evolved task for its own folder, keeping the parent's org (Harbor reports a trial by [task].name)", () => {
    const text = `[task]\nname = "harbor/hello-world"\ndescription = "d"\n[agent]\ntimeout_sec = 60.0\n`;
    const named = parseTaskToml(nameTaskTomlFor(text, "hello-world-m1")).raw as Record<string, Record<string, unknown>>;
    expect(named.task).toEqual({ name: "harbor/hello-world-m1", description: "d" });
    expect(named.agent).toEqual({ timeout_sec: 60 });
    // no [task]: Harbor names it by its folder already; already its own name: nothing to rewrite
    expect(nameTaskTomlFor(`[agent]\ntimeout_sec = 60.0\n`, "k")).toBe(`[agent]\ntimeout_sec = 60.0\n`);
    expect(nameTaskTomlFor(`[task]\nname = "o/k"\n`, "k")).toBe(`[task]\nname = "o/k"\n`);
    // a name the engineer or reviewer chose (not the parent's) stays
    expect(nameTaskTomlFor(`[task]\nname = "o/chosen"\n`, "k", "o/parent")).toBe(`[task]\nname = "o/chosen"\n`);
    expect(parseTaskToml(nameTaskTomlFor(`[task]\nname = "o/parent"\n`, "k", "o/parent")).config.task?.name).toBe("o/k");
    // a key that is no package name ('..'): the [task] table goes and Harbor uses the folder name
    expect(parseTaskToml(nameTaskTomlFor(text, "a..b")).raw.task).toBeUndefined();
  });

  it("scales the timeouts of steps that set their own (they win in Harbor's multi-step trial), or sets them when the task had none", () => {
    const steps =
      `[[steps]]\nname = "a"\n[steps.agent]\ntimeout_sec = 30.0\n[steps.verifier]\ntimeout_sec = 20.0\n` +
      `[[steps]]\nname = "b"\n[[steps]]\nname = "c"\n[steps.agent]\ntimeout_sec = 90.0\n`;
    type Step = { name: string; agent?: { timeout_sec: number }; verifier?: { timeout_sec: number } };
    const stepsOf = (text: string) => (parseTaskToml(text).raw as { steps: Step[] }).steps;
    // task-wide 120 s -> 60 s: every step's own budget halves; a step without its own takes the task's
    const halved = stepsOf(applyTaskTomlFields(`[agent]\ntimeout_sec = 120.0\n${steps}`, { agent_timeout_sec: 60 }));
    expect(halved.map((st) => st.agent?.timeout_sec)).toEqual([15, undefined, 45]);
    expect(halved[0].verifier).toEqual({ timeout_sec: 20 });
    // no task-wide timeout (as in harbor-tasks' hello-multi-step-simple): the new value is each step's
    const set = stepsOf(applyTaskTomlFields(steps, { agent_timeout_sec: 45, verifier_timeout_sec: 40 }));
    expect(set.map((st) => [st.agent?.timeout_sec, st.verifier?.timeout_sec])).toEqual([
      [45, 40],
      [undefined, undefined],
      [45, undefined],
    ]);
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTaskFolders } from "./folder";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "envforge-task-folders-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A task folder with the given files (relative path -> content); "dir/" makes an empty folder. */
function task(dataset: string, name: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, dataset, name, rel);
    if (rel.endsWith("/")) fs.mkdirSync(p, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
    }
  }
}

const base = { "instruction.md": "Do it.\n", "environment/Dockerfile": "FROM ubuntu:24.04\n", "tests/test.sh": "exit 0\n" };
const steps = `[[steps]]\nname = "one"\n[[steps]]\nname = "two"\n`;

// Harbor's rules: harbor/models/task/task.py (is_valid_dir, _validate_tests), utils/scripts.py (os -> script suffix)
describe("task folder layout, as Harbor checks it", () => {
  it("refuses what Harbor refuses or skips, naming the task and the missing file", async () => {
    const { "tests/test.sh": _testSh, ...withoutTestSh } = base;
    const { "environment/Dockerfile": _dockerfile, ...withoutEnvironment } = base;
    task("bad", "no-test-sh", { ...withoutTestSh, "tests/test_state.py": "", "task.toml": "" });
    task("bad", "no-environment", { ...withoutEnvironment, "task.toml": "" });
    task("bad", "windows-with-sh", { ...base, "task.toml": `[environment]\nos = "Windows"\n` });
    task("bad", "step-without-tests", {
      ...withoutTestSh,
      "task.toml": steps,
      "steps/one/instruction.md": "1\n",
      "steps/one/tests/test.sh": "exit 0\n",
      "steps/two/instruction.md": "2\n",
      "steps/two/tests/check.py": "\n",
    });
    const { tasks, problems } = await readTaskFolders(path.join(root, "bad"));
    expect(tasks).toEqual([]);
    const byTask = Object.fromEntries(problems.map((p) => [p.task, p.message]));
    expect(byTask).toEqual({
      "no-environment": "no-environment: environment/ is missing (Harbor lists only task folders that have one)",
      "no-test-sh": "no-test-sh: tests/test.sh is missing (Harbor runs it to verify the task)",
      "windows-with-sh": "windows-with-sh: tests/test.bat is missing (Harbor runs it to verify the task on windows)",
      "step-without-tests":
        "step-without-tests: steps/two/tests/test.sh (or a shared tests/test.sh) is missing (step 'two' of task.toml; Harbor runs it to verify the step)",
    });
  });

  it("accepts what Harbor accepts: an empty environment/, test.bat on windows, shared step tests, a separate verifier", async () => {
    task("good", "empty-environment", { ...base, "task.toml": "", "environment/": "" });
    fs.rmSync(path.join(root, "good", "empty-environment", "environment", "Dockerfile"));
    task("good", "windows", { ...base, "tests/test.bat": "exit /b 0\n", "task.toml": `[environment]\nos = "windows"\n` });
    task("good", "steps-shared-tests", {
      ...base,
      "task.toml": steps,
      "steps/one/instruction.md": "1\n",
      "steps/two/instruction.md": "2\n",
    });
    task("good", "separate-verifier", {
      "instruction.md": "Do it.\n",
      "environment/Dockerfile": "FROM ubuntu:24.04\n",
      "task.toml": `[verifier]\nenvironment_mode = "separate"\n`,
    });
    const { tasks, problems } = await readTaskFolders(path.join(root, "good"));
    expect(problems).toEqual([]);
    expect(tasks.map((t) => t.name).sort()).toEqual(["empty-environment", "separate-verifier", "steps-shared-tests", "windows"]);
  });
});

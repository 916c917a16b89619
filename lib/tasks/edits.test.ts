import { createHash } from "node:crypto";
import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { applyTaskEdits, evolvedConfig, parseTaskEdits, type ParentTaskFile, type TaskEdits } from "./edits";

const sha = (t: string) => createHash("sha256").update(t).digest("hex");
const file = (path: string, text: string | null, executable = false): ParentTaskFile => ({
  path,
  sha256: sha(text ?? path),
  size: text === null ? 10 : Buffer.byteLength(text),
  executable,
  text,
});
const TOML =
  '[task]\nname = "harbor/hello-world"\n\n[agent]\ntimeout_sec = 120.0\n\n[verifier]\ntimeout_sec = 120.0\n\n[metadata]\ndifficulty = "easy"\n';
const parent: ParentTaskFile[] = [
  file("instruction.md", 'Create a file called hello.txt with "Hello, world!" as the content.\n'),
  file("task.toml", TOML),
  file("tests/test.sh", "#!/bin/bash\npytest /tests/test_state.py\n", true),
  file("tests/test_state.py", 'def test_hello():\n    assert open("/app/hello.txt").read().strip() == "Hello, world!"\n'),
  file("environment/blob.bin", null),
];
const edits = (files: TaskEdits["files"], taskToml: Record<string, unknown> = {}): TaskEdits => ({ files, taskToml });

describe("applyTaskEdits", () => {
  it("a task-wide timeout edit reaches the steps that set their own (Harbor's multi-step trial takes theirs first)", () => {
    const multi = [
      file("task.toml", `[agent]\ntimeout_sec = 120.0\n[[steps]]\nname = "one"\n[steps.agent]\ntimeout_sec = 30.0\n`),
      file("steps/one/instruction.md", "Do one.\n"),
      file("tests/test.sh", "exit 0\n", true),
    ];
    const r = applyTaskEdits(multi, edits([], { "agent.timeout_sec": 240 }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const toml = r.changed.find((c) => c.path === "task.toml")!.after;
    expect(toml).toMatch(/\[steps\.agent\]\ntimeout_sec = 60\b/);
  });

  it("applies search/replace, patches and new files in order, and reads task.toml changes into the config", () => {
    const patch = createTwoFilesPatch("tests/test.sh", "tests/test.sh", parent[2].text!, "#!/bin/bash\npytest -x /tests/test_state.py\n");
    const r = applyTaskEdits(
      parent,
      edits(
        [
          { path: "instruction.md", search: '"Hello, world!"', replace: '"Hello, world!" followed by a newline' },
          { path: "instruction.md", search: "followed by a newline", replace: "and nothing else" },
          { path: "tests/test.sh", patch },
          { path: "tests/test_extra.py", content: "def test_more():\n    pass\n" },
        ],
        { "agent.timeout_sec": 60 },
      ),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.changed.map((c) => c.path)).toEqual(["instruction.md", "task.toml", "tests/test.sh", "tests/test_extra.py"]);
    expect(r.changed[0].after).toBe('Create a file called hello.txt with "Hello, world!" and nothing else as the content.\n');
    expect(r.changed[2].after).toContain("pytest -x");
    expect(r.changed[3].before).toBeNull();
    expect(r.fields.agent_timeout_sec).toBe(60);
    expect(r.fields.verifier_timeout_sec).toBe(120);
    const config = evolvedConfig({ task_name: "hello-world", agent_timeout_sec: 120, cpus: 4 }, r.fields, r.filesDigest);
    expect(config).toMatchObject({ task_name: "hello-world", agent_timeout_sec: 60, difficulty: "easy", files_sha256: r.filesDigest });
    expect(config.cpus).toBeUndefined(); // the evolved task.toml sets no cpus: the config follows the files
  });

  it("refuses a search text that is missing or ambiguous, a patch that does not apply, and binaries, naming the edit", () => {
    const r = applyTaskEdits(
      parent,
      edits([
        { path: "instruction.md", search: "Goodbye", replace: "x" },
        { path: "tests/test_state.py", search: "hello", replace: "x" },
        { path: "tests/test.sh", patch: "--- a\n+++ b\n@@ -1,1 +1,1 @@\n-echo nothing\n+echo other\n" },
        { path: "environment/blob.bin", search: "a", replace: "b" },
        { path: "missing.md", search: "a", replace: "b" },
      ]),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.path)).toEqual(["files.0.search", "files.1.search", "files.2.patch", "files.3.path", "files.4.path"]);
    expect(r.errors[0].message).toMatch(/not found in instruction.md/);
    expect(r.errors[1].message).toMatch(/occurs 2 times/);
    expect(r.errors[2].message).toMatch(/does not apply to tests\/test.sh/);
    expect(r.errors[3].message).toMatch(/binary/);
  });

  it("refuses a task.toml Harbor would reject, emptied tests and edits that change nothing", () => {
    const badToml = applyTaskEdits(parent, edits([], { "agent.timeout_sec": -5 }));
    expect(badToml).toMatchObject({ ok: false, errors: [{ path: "taskToml.agent.timeout_sec" }] });
    const netBad = applyTaskEdits(parent, edits([], { "environment.network_mode": "sometimes" }));
    expect(netBad.ok).toBe(false);
    const emptied = applyTaskEdits(
      parent,
      edits([
        { path: "tests/test.sh", content: "" },
        { path: "tests/test_state.py", content: "" },
      ]),
    );
    expect(emptied).toMatchObject({ ok: false, errors: [{ path: "tests/", message: expect.stringMatching(/must still hold/) }] });
    const noop = applyTaskEdits(parent, edits([{ path: "instruction.md", search: "hello.txt", replace: "hello.txt" }]));
    expect(noop).toMatchObject({ ok: false, errors: [{ path: "files", message: expect.stringMatching(/change nothing/) }] });
    const escape = parseTaskEdits({ files: [{ path: "../etc/passwd", content: "x" }] });
    expect(escape.errors).toEqual([{ path: "files.0.path", message: expect.stringMatching(/"\.\."/) }]);
  });

  it("gives two tasks with the same files the same digest and other files another", () => {
    const a = applyTaskEdits(parent, edits([{ path: "instruction.md", search: "hello.txt", replace: "hi.txt" }]));
    const b = applyTaskEdits(parent, edits([{ path: "instruction.md", content: parent[0].text!.replace("hello.txt", "hi.txt") }]));
    const c = applyTaskEdits(parent, edits([{ path: "instruction.md", search: "hello.txt", replace: "bye.txt" }]));
    expect(a.ok && b.ok && c.ok).toBe(true);
    if (!a.ok || !b.ok || !c.ok) return;
    expect(a.filesDigest).toBe(b.filesDigest);
    expect(a.filesDigest).not.toBe(c.filesDigest);
  });
});

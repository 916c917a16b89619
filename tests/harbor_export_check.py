#!/usr/bin/env python3
"""Checks an EnvForge export the way Harbor would read it (stdlib only).

Usage: harbor_export_check.py <export-folder> [<expectations.json>]

- every folder of harbor-dataset/ is a task folder as harbor/models/task/task.py checks it: task.toml
  (valid TOML), environment/, instruction.md (or steps/<name>/instruction.md for each [[steps]]
  entry) and the verifier's script for the task's os, tests/test.sh (tests/test.bat on windows;
  per step steps/<name>/tests/ or the shared tests/), unless the verifier runs in a separate environment;
- harbor-job.json follows the field rules of Harbor's JobConfig (harbor/models/job/config.py,
  harbor/models/trial/config.py): agents non-empty, each with name or import_path; a dataset sets
  path or name, never both, nor version with ref; a task sets path or name, never both,
  git_commit_id only with git_url, ref only with name; a local task path exists; n_attempts and
  n_concurrent_trials are whole numbers >= 1; no unknown top-level keys; environment.type is one of
  Harbor's; no deprecated environment keys (mounts_json, suppress_override_warnings);
- expectations (optional): [{"task", "parent_dir", "files": {path: content}, "toml": {"a.b": value}}]:
  the task differs from its parent folder exactly by those file contents and task.toml values.
Prints "ok" and exits 0, or prints every problem and exits 1.
"""
import json
import os
import sys
import tomllib

JOB_KEYS = {
    "job_name", "jobs_dir", "n_attempts", "install_only", "timeout_multiplier", "agent_timeout_multiplier",
    "verifier_timeout_multiplier", "agent_setup_timeout_multiplier", "environment_build_timeout_multiplier",
    "debug", "n_concurrent_trials", "quiet", "retry", "environment", "verifier", "metrics", "agents",
    "user_agent", "datasets", "tasks", "artifacts", "extra_instruction_paths", "extra_instructions", "source_jobs",
}
# harbor/models/environment_type.py
ENVIRONMENT_TYPES = {
    "docker", "daytona", "e2b", "modal", "runloop", "langsmith", "ec2", "gke", "ack", "openshift", "novita",
    "apple-container", "singularity", "islo", "tensorlake", "cwsandbox", "wandb", "use-computer", "cua-cloud",
    "blaxel", "opensandbox", "beam", "skypilot", "hf-sandbox", "hyperbrowser", "vercel",
}

problems = []


def problem(msg):
    problems.append(msg)


def separate_verifier(*levels):
    """A verify pass in a separate environment needs no test script (harbor/models/task/verifier_mode.py)."""
    for v in levels:
        v = v or {}
        if v.get("environment_mode"):
            return v["environment_mode"] == "separate"
        if v.get("environment"):
            return True
    return False


def check_task_folder(folder):
    name = os.path.basename(folder)
    toml_path = os.path.join(folder, "task.toml")
    if not os.path.isfile(toml_path):
        problem(f"{name}: task.toml missing")
        return
    try:
        with open(toml_path, "rb") as f:
            cfg = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        problem(f"{name}: task.toml is not valid TOML: {e}")
        return
    if not os.path.isdir(os.path.join(folder, "environment")):
        problem(f"{name}: environment/ missing (Harbor lists only task folders that have one)")
    env = cfg.get("environment") or {}
    script = "test.bat" if str(env.get("os", "linux")).lower() == "windows" else "test.sh"
    steps = cfg.get("steps") or []
    if steps:
        for step in steps:
            sdir = os.path.join(folder, "steps", step["name"])
            if not os.path.isfile(os.path.join(sdir, "instruction.md")):
                problem(f"{name}: steps/{step['name']}/instruction.md missing")
            if separate_verifier(step.get("verifier"), cfg.get("verifier")):
                continue
            if not os.path.isfile(os.path.join(sdir, "tests", script)) and not os.path.isfile(os.path.join(folder, "tests", script)):
                problem(f"{name}: steps/{step['name']}/tests/{script} (or a shared tests/{script}) missing")
    else:
        if not os.path.isfile(os.path.join(folder, "instruction.md")):
            problem(f"{name}: instruction.md missing")
        if not separate_verifier(cfg.get("verifier")) and not os.path.isfile(os.path.join(folder, "tests", script)):
            problem(f"{name}: tests/{script} missing")
    for root, dirs, files in os.walk(folder):
        for entry in dirs + files:
            if os.path.islink(os.path.join(root, entry)):
                problem(f"{name}: {os.path.relpath(os.path.join(root, entry), folder)} is a link")


def whole(value, least):
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def check_job(export, job):
    for key in job:
        if key not in JOB_KEYS:
            problem(f"harbor-job.json: unknown key {key}")
    if not whole(job.get("n_attempts", 1), 1):
        problem("harbor-job.json: n_attempts must be a whole number >= 1")
    if not whole(job.get("n_concurrent_trials", 4), 1):
        problem("harbor-job.json: n_concurrent_trials must be a whole number >= 1")
    agents = job.get("agents")
    if not isinstance(agents, list) or not agents:
        problem("harbor-job.json: agents must be a non-empty list (Harbor runs no trials without one)")
    else:
        for i, a in enumerate(agents):
            if not isinstance(a, dict) or not (a.get("name") or a.get("import_path")):
                problem(f"harbor-job.json: agents[{i}] needs name or import_path")
    for old, new in (("mounts_json", "mounts"), ("suppress_override_warnings", None)):
        if old in (job.get("environment") or {}):
            problem(f"harbor-job.json: environment.{old} is deprecated (Harbor warns){f': write {new}' if new else ''}")
    env_type = (job.get("environment") or {}).get("type")
    if env_type is not None and env_type not in ENVIRONMENT_TYPES:
        problem(f"harbor-job.json: environment.type {env_type!r} is not a Harbor environment type")
    datasets = job.get("datasets") or []
    tasks = job.get("tasks") or []
    if not datasets and not tasks:
        problem("harbor-job.json: either datasets or tasks must be provided")
    for i, d in enumerate(datasets):
        if d.get("version") is not None and d.get("ref") is not None:
            problem(f"harbor-job.json: datasets[{i}] sets both version and ref")
        if d.get("path") is None and d.get("name") is None:
            problem(f"harbor-job.json: datasets[{i}] needs path or name")
        if d.get("path") is not None and d.get("name") is not None:
            problem(f"harbor-job.json: datasets[{i}] sets both path and name")
        if "/" in (d.get("name") or "") and not d.get("repo"):
            # a package dataset (job/config.py is_package): read at ref, tasks named org/name
            if d.get("version") is not None:
                problem(f"harbor-job.json: datasets[{i}] is a package (org/name): Harbor ignores version, set ref")
            for pattern in d.get("task_names") or []:
                if "/" not in pattern:
                    problem(f"harbor-job.json: datasets[{i}].task_names {pattern!r} cannot match a package task's org/name")
    for i, t in enumerate(tasks):
        if t.get("path") is None and t.get("name") is None:
            problem(f"harbor-job.json: tasks[{i}] needs path or name")
        if t.get("path") is not None and t.get("name") is not None:
            problem(f"harbor-job.json: tasks[{i}] sets both path and name")
        if t.get("ref") is not None and t.get("name") is None:
            problem(f"harbor-job.json: tasks[{i}] sets ref without name")
        if t.get("git_commit_id") is not None and t.get("git_url") is None:
            problem(f"harbor-job.json: tasks[{i}] sets git_commit_id without git_url")
        if t.get("path") is not None and t.get("git_url") is None:
            local = os.path.join(export, t["path"])
            if not os.path.isfile(os.path.join(local, "task.toml")):
                problem(f"harbor-job.json: tasks[{i}].path {t['path']} is not a task folder of the export")


def files_of(folder):
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, folder).replace(os.sep, "/")] = fh.read()
    return out


def dotted(d, prefix=""):
    out = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict) and v:
            out.update(dotted(v, key))
        else:
            out[key] = v
    return out


def check_expectation(export, exp):
    task = exp["task"]
    child = files_of(os.path.join(export, "harbor-dataset", task))
    parent = files_of(exp["parent_dir"])
    edits = {p: c.encode() for p, c in exp.get("files", {}).items()}
    for p in sorted(set(child) | set(parent) | set(edits)):
        if p == "task.toml" and exp.get("toml") is not None:
            continue
        if p in edits:
            if child.get(p) != edits[p]:
                problem(f"{task}: {p} is not the approved edit")
        elif child.get(p) != parent.get(p):
            problem(f"{task}: {p} differs from the parent but no edit was approved for it")
    if exp.get("toml") is not None:
        c = dotted(tomllib.loads(child["task.toml"].decode()))
        pa = dotted(tomllib.loads(parent["task.toml"].decode()))
        for key in sorted(set(c) | set(pa)):
            want = exp["toml"][key] if key in exp["toml"] else pa.get(key)
            if c.get(key) != want:
                problem(f"{task}: task.toml {key} is {c.get(key)!r}, expected {want!r}")


def main():
    export = sys.argv[1]
    dataset = os.path.join(export, "harbor-dataset")
    if not os.path.isdir(dataset):
        problem("harbor-dataset/ missing")
    else:
        for name in sorted(os.listdir(dataset)):
            check_task_folder(os.path.join(dataset, name))
    job_path = os.path.join(export, "harbor-job.json")
    if not os.path.isfile(job_path):
        problem("harbor-job.json missing")
    else:
        with open(job_path) as f:
            check_job(export, json.load(f))
    if len(sys.argv) > 2:
        with open(sys.argv[2]) as f:
            for exp in json.load(f):
                check_expectation(export, exp)
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()

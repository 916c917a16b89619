/**
 * A real HTTP server (node:http on 127.0.0.1, port 0) speaking the Ray Jobs REST API of a head
 * node's dashboard:
 *   POST /api/jobs/                      submit -> { job_id, submission_id }; a known submission_id
 *                                        -> 400 (or 500) text "…Job with submission_id … already exists…"
 *   GET  /api/jobs/{submission_id}       job details; each GET moves the status one step along the
 *                                        job's script (default PENDING -> RUNNING -> SUCCEEDED), then stays
 *   GET  /api/jobs/{submission_id}/logs  { logs }
 *   POST /api/jobs/{submission_id}/stop  { stopped } and status STOPPED
 * Unknown jobs answer 404. Records every request. Wire data only: no imports from lib/.
 * What a job would see: `environmentOf` applies Ray's update_envs to its runtime_env.env_vars,
 * `runEntrypoint` runs its entrypoint in `sh -c` with that environment (as the job supervisor does).
 */
import { spawnSync } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type RayJobStatus = "PENDING" | "RUNNING" | "STOPPED" | "SUCCEEDED" | "FAILED";

export interface FakeRayJob {
  submission_id: string;
  job_id: string;
  entrypoint: string;
  runtime_env: Record<string, unknown>;
  metadata: Record<string, string>;
  body: Record<string, unknown>;
  status: RayJobStatus;
  message: string;
  /** statuses the next GETs move through */
  script: RayJobStatus[];
  logs: string;
}

export interface FakeRayOptions {
  /** status script of every new job (default ["PENDING", "RUNNING", "SUCCEEDED"]; the first is its status at submit) */
  script?: RayJobStatus[];
  /** logs of every new job */
  logs?: string;
  /** message a job gets when its script reaches FAILED */
  failureMessage?: string;
  /** status of the duplicate submission_id error: 400 (Ray 2.x) or 500 (older) */
  duplicateStatus?: 400 | 500;
  /** when set, every request needs `Authorization: Bearer <token>` (401 otherwise) */
  token?: string;
  /** answer 503 to the first N requests */
  failFirst?: number;
}

export interface FakeRay {
  url: string;
  /** the environment the job's entrypoint gets: `base` (the node's own) updated by its env_vars as Ray does */
  environmentOf(submissionId: string, base?: Record<string, string>): Record<string, string>;
  /** runs the job's entrypoint in `sh -c` with environmentOf(base), in `cwd` */
  runEntrypoint(
    submissionId: string,
    opts?: { base?: Record<string, string>; cwd?: string },
  ): { code: number | null; stdout: string; stderr: string };
  /** status script of jobs submitted from now on */
  setDefaultScript(script: RayJobStatus[]): void;
  /** `METHOD /path` of every request, in order */
  requests: string[];
  jobs: Map<string, FakeRayJob>;
  /** authorization header of every request */
  authorizations: (string | undefined)[];
  setScript(submissionId: string, script: RayJobStatus[]): void;
  close(): Promise<void>;
}

/**
 * Ray's update_envs (python/ray/_private/utils.py, called by RuntimeEnvContext.exec_worker in
 * python/ray/_private/runtime_env/context.py): each env_vars value in turn goes through Python's
 * os.path.expandvars (`$name` and `${name}` replaced when set, left as they are otherwise), then
 * every `${NAME}` left is deleted (ray-project/ray #36187), and the result is set in the environment
 * the later values expand from.
 */
export function rayUpdateEnvs(envVars: Record<string, string>, base: Record<string, string>): Record<string, string> {
  const env = { ...base };
  for (const [key, value] of Object.entries(envVars)) {
    // posixpath.expandvars: _varprog = re.compile(r'\$(\w+|\{[^}]*\})', re.ASCII), unknown names kept
    const expanded = value.replace(/\$(\w+|\{[^}]*\})/g, (whole, name: string) => {
      const bare = name.startsWith("{") ? name.slice(1, -1) : name;
      return Object.hasOwn(env, bare) ? env[bare] : whole;
    });
    env[key] = expanded.replace(/\$\{[A-Z0-9_]+\}/g, "");
  }
  return env;
}

/** Starts the fake Ray dashboard; `close()` it when done. */
export async function startFakeRay(opts: FakeRayOptions = {}): Promise<FakeRay> {
  const jobs = new Map<string, FakeRayJob>();
  const requests: string[] = [];
  const authorizations: (string | undefined)[] = [];
  let failuresLeft = opts.failFirst ?? 0;
  let defaultScript = opts.script;
  let counter = 0;

  const sendJson = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
  const sendText = (res: http.ServerResponse, status: number, text: string) => {
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
  const details = (job: FakeRayJob) => ({
    type: "SUBMISSION",
    job_id: job.job_id,
    submission_id: job.submission_id,
    driver_info: null,
    status: job.status,
    entrypoint: job.entrypoint,
    message: job.message,
    error_type: job.status === "FAILED" ? "JOB_ENTRYPOINT_COMMAND_ERROR" : null,
    start_time: 1_700_000_000_000,
    end_time: ["SUCCEEDED", "FAILED", "STOPPED"].includes(job.status) ? 1_700_000_060_000 : null,
    metadata: job.metadata,
    runtime_env: job.runtime_env,
  });
  const setStatus = (job: FakeRayJob, status: RayJobStatus) => {
    job.status = status;
    job.message =
      status === "PENDING"
        ? "Job has not started yet."
        : status === "RUNNING"
          ? "Job is currently running."
          : status === "SUCCEEDED"
            ? "Job finished successfully."
            : status === "STOPPED"
              ? "Job was intentionally stopped."
              : (opts.failureMessage ?? "Job entrypoint command failed with exit code 1");
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0];
      requests.push(`${req.method} ${path}`);
      authorizations.push(req.headers.authorization);
      if (failuresLeft > 0) {
        failuresLeft--;
        return sendText(res, 503, "Service Unavailable");
      }
      if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) return sendText(res, 401, "Unauthorized");

      if (req.method === "POST" && (path === "/api/jobs/" || path === "/api/jobs")) {
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
        } catch {
          return sendText(res, 400, "Failed to parse request body as JSON");
        }
        if (typeof body.entrypoint !== "string") return sendText(res, 400, "TypeError: entrypoint must be a string");
        const submissionId = typeof body.submission_id === "string" ? body.submission_id : `raysubmit_${++counter}`;
        if (jobs.has(submissionId)) {
          return sendText(
            res,
            opts.duplicateStatus ?? 400,
            `Traceback (most recent call last):\n  File "job_head.py", line 1, in submit_job\nValueError: Job with ` +
              `submission_id ${submissionId} already exists. Please use a different submission_id.`,
          );
        }
        const script = [...(defaultScript ?? ["PENDING", "RUNNING", "SUCCEEDED"])];
        const job: FakeRayJob = {
          submission_id: submissionId,
          job_id: `0${++counter}000000`,
          entrypoint: body.entrypoint,
          runtime_env: (body.runtime_env as Record<string, unknown>) ?? {},
          metadata: (body.metadata as Record<string, string>) ?? {},
          body,
          status: "PENDING",
          message: "",
          script,
          logs: opts.logs ?? "",
        };
        setStatus(job, script.shift() ?? "PENDING");
        jobs.set(submissionId, job);
        return sendJson(res, 200, { job_id: job.job_id, submission_id: submissionId });
      }

      const m = /^\/api\/jobs\/([^/]+)(\/logs|\/stop)?\/?$/.exec(path);
      if (!m) return sendText(res, 404, "Not Found");
      const id = decodeURIComponent(m[1]);
      const job = jobs.get(id);
      if (!job) return sendText(res, 404, `Job ${id} does not exist`);
      if (req.method === "GET" && !m[2]) {
        const out = details(job);
        const next = job.script.shift();
        if (next) setStatus(job, next);
        return sendJson(res, 200, out);
      }
      if (req.method === "GET" && m[2] === "/logs") return sendJson(res, 200, { logs: job.logs });
      if (req.method === "POST" && m[2] === "/stop") {
        const running = job.status === "PENDING" || job.status === "RUNNING";
        if (running) {
          setStatus(job, "STOPPED");
          job.script = [];
        }
        return sendJson(res, 200, { stopped: running });
      }
      sendText(res, 405, "Method Not Allowed");
    });
  });
  const environmentOf = (submissionId: string, base: Record<string, string> = {}) => {
    const job = jobs.get(submissionId);
    if (!job) throw new Error(`no job ${submissionId}`);
    return rayUpdateEnvs((job.runtime_env.env_vars as Record<string, string> | undefined) ?? {}, base);
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    jobs,
    authorizations,
    environmentOf,
    runEntrypoint(submissionId, { base = {}, cwd } = {}) {
      const job = jobs.get(submissionId);
      if (!job) throw new Error(`no job ${submissionId}`);
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...base };
      const out = spawnSync("sh", ["-c", job.entrypoint], {
        env: environmentOf(submissionId, env) as NodeJS.ProcessEnv,
        cwd,
        encoding: "utf8",
      });
      return { code: out.status, stdout: out.stdout, stderr: out.stderr };
    },
    setDefaultScript(script) {
      defaultScript = [...script];
    },
    setScript(submissionId, script) {
      const job = jobs.get(submissionId);
      if (!job) throw new Error(`no job ${submissionId}`);
      job.script = [...script];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

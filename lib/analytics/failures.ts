/**
 * Failure classification, signatures and clustering of rollouts. Pure: no database, no Next.js.
 *
 * Precedence when several reasons apply: a success is never a failure; then what the agent
 * side reported (agent timeout, verifier timeout, context length, format error), because it
 * explains why the attempt ended; then the verifier could not run its tests because the agent's
 * own commands broke the environment (the policy's failure, with the agent's step as evidence);
 * then infrastructure (the sandbox or harness failed on its own: no real verdict); then other
 * errors; and only then "tests ran and the reward is below threshold".
 */
import type { EnvironmentDamage } from "./blame";
import { DEFAULT_SUCCESS_THRESHOLD } from "./metrics";

/** Failure categories, in display order. */
export const FAILURE_CATEGORIES = [
  "agent_timeout",
  "verifier_timeout",
  "context_length_exceeded",
  "format_error",
  "verifier_failed",
  "environment_broken_by_agent",
  "infra_error",
  "errored_other",
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/** What the classifier looks at for one rollout. */
export interface RolloutFailureInput {
  status?: string | null;
  reward?: number | null;
  /** when absent it is derived from reward >= threshold */
  success?: boolean | null;
  errorType?: string | null;
  errorMessage?: string | null;
  verifierOutput?: string | null;
  /** whether the verifier produced a reward at all; defaults to "reward is a number" */
  hasVerdict?: boolean;
  /** content of the trajectory's last message, where the harness records why it stopped */
  finalMessage?: string | null;
  /** the agent's commands that broke the environment (see blame.ts) */
  environmentDamage?: readonly EnvironmentDamage[] | null;
  threshold?: number;
}

// --- Verifier output ------------------------------------------------------------------

/** What a verifier's console output tells about the test run. */
export interface VerifierOutputReport {
  /** a test runner reported results (pytest session summary, unittest "Ran N tests", ...) */
  testsRan: boolean;
  /** the test runner started on the tests (pytest collected them) even if it never finished */
  testsStarted: boolean;
  passed: number;
  failed: number;
  errors: number;
  /** failing test ids from pytest's short summary, directory stripped, sorted, unique */
  failedTests: string[];
  /** a harness crash marker (Fatal Python error, INTERNALERROR, traceback) */
  crash: string | null;
  /** why the test harness could not start (missing tool, no disk, not executable) */
  setupFailure: string | null;
  /** what broke before that (apt could not install the tool, network down, ...) */
  setupCause: string | null;
}

const PYTEST_SUMMARY =
  /^=+ (?:.*?\b(\d+) (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected)\b.*?|no tests ran.*?) in [\d.]+s(?: \([\d:]+\))? =+\s*$/m;
const PYTEST_FAILED_LINE = /^(FAILED|ERROR) (\S+?)(?: - .*)?$/gm;
const UNITTEST_RAN = /^Ran \d+ tests? in [\d.]+s\s*$/m;
const PYTEST_COLLECTED = /^collected \d+ items?\b/m;
const TOOL_MISSING = /(?:^|\s)([\w.+-]+): command not found\s*$|^\S*sh: \d+: ([\w.+-]+): not found\s*$/m;

const SETUP_FAILURES: ReadonlyArray<[RegExp, (m: RegExpMatchArray) => string]> = [
  [TOOL_MISSING, (m) => `${m[1] ?? m[2]}: command not found`],
  [/No\s+space\s+left\s+on\s+device/, () => "no space left on device"],
  [/(\S*test\.sh): Permission denied/, () => "test script not executable (permission denied)"],
  [/(\S*test\.sh): No such file or directory/, () => "test script missing"],
];

const SETUP_CAUSES: ReadonlyArray<[RegExp, string]> = [
  [/Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock the administration directory/, "apt: dpkg lock held by another process"],
  [/dpkg was interrupted/, "apt: dpkg was interrupted"],
  [/Sub-process \/usr\/bin\/dpkg returned an error code/, "apt: dpkg returned an error"],
  [/Could not connect to|Unable to connect to|Could not resolve|Temporary failure resolving|Failed to connect to|Couldn't connect to server/, "network unreachable"],
  [/curl: \(77\)|certificate file/, "curl: CA certificates missing"],
  [/Unable to locate package/, "apt: package not found"],
  [/The repository .* is not signed|NO_PUBKEY/, "apt: unsigned repository"],
];

const CRASH_MARKERS: ReadonlyArray<[RegExp, (m: RegExpMatchArray) => string]> = [
  [/Fatal Python error: ([^\n]+)/, (m) => `Fatal Python error: ${m[1].trim()}`],
  [/^INTERNALERROR>/m, () => "pytest INTERNALERROR"],
  [/^Segmentation fault/m, () => "Segmentation fault"],
  [/^Killed\s*$/m, () => "process killed (out of memory?)"],
  [/^Traceback \(most recent call last\):/m, () => "traceback"],
];

function countOf(summary: string, word: RegExp): number {
  const m = summary.match(word);
  return m ? Number(m[1]) : 0;
}

/** Reads a verifier's console output: did tests run, which failed, did the harness break. */
export function parseVerifierOutput(output: string | null | undefined): VerifierOutputReport {
  const text = output ?? "";
  const summaryMatch = text.match(PYTEST_SUMMARY);
  const summary = summaryMatch ? summaryMatch[0] : "";
  const failedTests = new Set<string>();
  for (const m of text.matchAll(PYTEST_FAILED_LINE)) failedTests.add(testName(m[1], m[2]));
  const testsRan = summaryMatch !== null || UNITTEST_RAN.test(text) || failedTests.size > 0;

  let crash: string | null = null;
  for (const [re, label] of CRASH_MARKERS) {
    const m = text.match(re);
    if (m) {
      crash = label(m);
      break;
    }
  }
  let setupFailure: string | null = null;
  for (const [re, label] of SETUP_FAILURES) {
    const m = text.match(re);
    if (m) {
      setupFailure = label(m);
      break;
    }
  }
  let setupCause: string | null = null;
  if (setupFailure) {
    for (const [re, label] of SETUP_CAUSES) {
      if (re.test(text)) {
        setupCause = label;
        break;
      }
    }
  }
  return {
    testsRan,
    testsStarted: testsRan || PYTEST_COLLECTED.test(text),
    passed: countOf(summary, /(\d+) passed/),
    failed: countOf(summary, /(\d+) failed/),
    errors: countOf(summary, /(\d+) errors?\b/),
    failedTests: [...failedTests].sort(),
    crash,
    setupFailure,
    setupCause,
  };
}

/** `FAILED ../tests/test_outputs.py::test_x[a-1]` -> `test_outputs.py::test_x[*]`. */
function testName(kind: string, id: string): string {
  const [file, ...rest] = id.split("::");
  const base = file.split(/[\\/]/).pop() ?? file;
  const name = [base, ...rest].join("::").replace(/\[[^\]]*\]/g, "[*]");
  return kind === "ERROR" ? `ERROR ${name}` : name;
}

// --- Classification -------------------------------------------------------------------

const SETUP_TIMEOUT_TYPES = /SetupTimeout|EnvironmentStartTimeout|StartTimeout|BuildTimeout/i;
const INFRA_ERROR_TYPES =
  /RewardFile(?:NotFound|Empty)|VerifierOutputParse|Environment|Sandbox|Docker|Daytona|Modal|Kubernetes|Container|Connection|Network|Setup|OutOfMemory|Infra|Build/i;

/** Harbor's "the verifier left no usable reward" errors: the harness or the agent may be the cause. */
const VERIFIER_RESULT_TYPES = /RewardFile(?:NotFound|Empty)|VerifierOutputParse/;

function successOf(input: RolloutFailureInput): boolean {
  if (typeof input.reward === "number" && Number.isFinite(input.reward)) {
    return input.reward >= (input.threshold ?? DEFAULT_SUCCESS_THRESHOLD);
  }
  return input.success === true;
}

function isAgentTimeout(type: string, message: string): boolean {
  return /AgentTimeout/i.test(type) || (/Timeout/i.test(type) && /\bagent\b/i.test(message) && !/verifier/i.test(message));
}

function isVerifierTimeout(type: string, message: string): boolean {
  return /VerifierTimeout/i.test(type) || (/Timeout/i.test(type) && /verifier|tests? timed out/i.test(message));
}

const CONTEXT_LENGTH =
  /ContextLength|context[_ ]length|maximum context|context window|prompt is too long|too many tokens|max_model_len|input tokens exceed/i;
const FORMAT_ERROR_TYPE = /Format|(?<!Verifier)Output(?:Parse)?Error|ParseError|ToolCallError/i;
const FORMAT_ERROR_FINAL = /^\s*Format error\b|did not include a valid .{0,40}tool call|invalid tool call/i;

/** Failure category of a rollout, or null when it succeeded. */
export function classifyRollout(input: RolloutFailureInput): FailureCategory | null {
  if (successOf(input)) return null;
  const type = input.errorType ?? "";
  const message = input.errorMessage ?? "";
  const hasVerdict = input.hasVerdict ?? (typeof input.reward === "number" && Number.isFinite(input.reward));

  if (type && SETUP_TIMEOUT_TYPES.test(type)) return "infra_error";
  if (type && isAgentTimeout(type, message)) return "agent_timeout";
  if (type && isVerifierTimeout(type, message)) return "verifier_timeout";
  if (CONTEXT_LENGTH.test(type) || CONTEXT_LENGTH.test(message) || CONTEXT_LENGTH.test(input.finalMessage ?? "")) {
    return "context_length_exceeded";
  }
  if ((type && FORMAT_ERROR_TYPE.test(type) && !INFRA_ERROR_TYPES.test(type)) || FORMAT_ERROR_FINAL.test(input.finalMessage ?? "")) {
    return "format_error";
  }
  if (type && VERIFIER_RESULT_TYPES.test(type) && (input.environmentDamage?.length ?? 0) > 0) return "environment_broken_by_agent";
  if (type && INFRA_ERROR_TYPES.test(type)) return "infra_error";

  const report = parseVerifierOutput(input.verifierOutput);
  const brokenByAgent = (input.environmentDamage?.length ?? 0) > 0;
  // The verifier could not set its tests up: the agent's doing when its own commands broke the
  // sandbox, else the harness broke on its own and the reward says nothing about the policy.
  if (!report.testsStarted && report.setupFailure) return brokenByAgent ? "environment_broken_by_agent" : "infra_error";
  if (!report.testsStarted && report.crash) return brokenByAgent ? "environment_broken_by_agent" : "infra_error";
  if (type || input.status === "errored") return "errored_other";
  if (!hasVerdict) return "infra_error";
  return "verifier_failed";
}

// --- Signatures -----------------------------------------------------------------------

/** What each kind of environment damage is called in a signature. */
export const DAMAGE_LABELS: Record<EnvironmentDamage["kind"], string> = {
  package_manager_timed_out: "agent's package-manager command timed out",
  package_manager_killed: "agent's package-manager command was killed",
  killed_package_manager: "agent killed the package manager or removed its lock",
  removed_tool: "agent removed a tool",
  package_manager_in_background: "agent left a package manager running in the background",
};

const SIGNATURE_MAX = 240;

/**
 * Strips what varies between occurrences of the same failure: urls, uuids, hex hashes and
 * addresses, paths, mixed letter/digit ids, numbers; keeps the first non-empty line.
 */
export function normalizeMessage(message: string | null | undefined): string {
  const line = (message ?? "").split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
  const out = line
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<url>")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<uuid>")
    .replace(/\b0x[0-9a-f]+\b/gi, "<hex>")
    .replace(/(?<![\w<])(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[\\/][\w.@+-]+)+[\\/]?/g, "<path>")
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, "<hex>")
    .replace(/\b(?=\w*\d)(?=\w*[A-Za-z])[A-Za-z0-9_-]{6,}\b/g, (m) => (/^[A-Za-z_]+\d{1,2}$/.test(m) ? m : "<id>"))
    .replace(/\b\d+(?:[.,]\d+)*(?:e[-+]?\d+)?\b/gi, "<n>")
    .replace(/\s+/g, " ")
    .trim();
  return cap(out);
}

function cap(s: string, max = SIGNATURE_MAX): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

function joinTests(tests: string[]): string {
  let out = "";
  let shown = 0;
  for (const t of tests) {
    const next = out ? `${out}, ${t}` : t;
    const more = tests.length - shown - 1;
    if (next.length > SIGNATURE_MAX - (more > 0 ? 12 : 0)) break;
    out = next;
    shown += 1;
  }
  if (shown === 0) return cap(tests[0]);
  return shown < tests.length ? `${out} (+${tests.length - shown} more)` : out;
}

function errorSignature(type: string, message: string): string {
  const msg = normalizeMessage(message);
  if (!type) return msg || "unknown error";
  return cap(msg ? `${type}: ${msg}` : type);
}

/** The signature of a failure within its category (clusters group equal signatures). */
export function failureSignature(input: RolloutFailureInput, category?: FailureCategory | null): string {
  const cat = category === undefined ? classifyRollout(input) : category;
  const type = input.errorType ?? "";
  const message = input.errorMessage ?? "";
  if (cat === null) return "";
  switch (cat) {
    case "agent_timeout":
    case "verifier_timeout":
    case "context_length_exceeded":
    case "errored_other":
      return errorSignature(type, message || input.finalMessage || "");
    case "format_error": {
      if (type) return errorSignature(type, message);
      const final = normalizeMessage(input.finalMessage);
      return /^format error\b/i.test(final) ? final : cap(`format error: ${final}`);
    }
    case "infra_error": {
      if (type) return errorSignature(type, message);
      const report = parseVerifierOutput(input.verifierOutput);
      if (!report.testsRan && report.setupFailure) {
        return cap(`verifier setup: ${report.setupFailure}${report.setupCause ? ` (${report.setupCause})` : ""}`);
      }
      if (!report.testsRan && report.crash) return cap(`verifier crashed: ${report.crash}`);
      return input.verifierOutput ? "no verifier verdict" : "no verifier verdict (verifier did not run)";
    }
    case "environment_broken_by_agent": {
      const damage = input.environmentDamage?.[0];
      const report = parseVerifierOutput(input.verifierOutput);
      const cause = damage ? DAMAGE_LABELS[damage.kind] : "agent broke the environment";
      const effect = report.setupFailure
        ? `verifier setup: ${report.setupFailure}${report.setupCause ? ` (${report.setupCause})` : ""}`
        : report.crash
          ? `verifier crashed: ${report.crash}`
          : type
            ? errorSignature(type, message)
            : "no verifier verdict";
      return cap(`${cause}; ${effect}`);
    }
    case "verifier_failed": {
      const report = parseVerifierOutput(input.verifierOutput);
      if (report.crash && !report.testsRan) return cap(`tests crashed: ${report.crash}`);
      if (report.failedTests.length > 0) return joinTests(report.failedTests);
      if (report.testsRan) return "tests failed (names not reported)";
      return "reward below threshold";
    }
  }
}

// --- Clustering -----------------------------------------------------------------------

/** One classified failure. */
export interface FailureRow {
  rolloutId: string;
  environmentKey: string;
  category: FailureCategory;
  signature: string;
}

/** A group of failures with the same category and signature. */
export interface FailureCluster {
  id: string;
  category: FailureCategory;
  signature: string;
  count: number;
  environments: number;
  environmentKeys: string[];
  exemplarRolloutIds: string[];
}

/** Stable id of a cluster: FNV-1a 64 of category and signature, 16 hex digits. */
export function clusterId(category: FailureCategory, signature: string): string {
  let h = 0xcbf29ce484222325n;
  const bytes = new TextEncoder().encode(`${category}\u0000${signature}`);
  for (const b of bytes) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}

const EXEMPLARS = 3;

/**
 * Groups failures by category and signature, largest first (ties by category order, then
 * signature). Exemplars: the smallest rollout id of each environment, environments taken in
 * order of their smallest id, so the choice is deterministic and spread across environments.
 */
export function clusterFailures(rows: Iterable<FailureRow>): FailureCluster[] {
  const groups = new Map<string, { category: FailureCategory; signature: string; rows: FailureRow[] }>();
  for (const r of rows) {
    const key = `${r.category}\u0000${r.signature}`;
    let g = groups.get(key);
    if (!g) {
      g = { category: r.category, signature: r.signature, rows: [] };
      groups.set(key, g);
    }
    g.rows.push(r);
  }
  const clusters: FailureCluster[] = [];
  for (const g of groups.values()) {
    const firstByEnv = new Map<string, string>();
    for (const r of g.rows) {
      const cur = firstByEnv.get(r.environmentKey);
      if (cur === undefined || r.rolloutId < cur) firstByEnv.set(r.environmentKey, r.rolloutId);
    }
    const perEnv = [...firstByEnv.values()].sort();
    const exemplars = perEnv.slice(0, EXEMPLARS);
    if (exemplars.length < EXEMPLARS) {
      const rest = g.rows.map((r) => r.rolloutId).filter((id) => !exemplars.includes(id)).sort();
      for (const id of rest) {
        if (exemplars.length >= EXEMPLARS) break;
        if (!exemplars.includes(id)) exemplars.push(id);
      }
    }
    clusters.push({
      id: clusterId(g.category, g.signature),
      category: g.category,
      signature: g.signature,
      count: g.rows.length,
      environments: firstByEnv.size,
      environmentKeys: [...firstByEnv.keys()].sort(),
      exemplarRolloutIds: exemplars,
    });
  }
  const order = (c: FailureCategory) => FAILURE_CATEGORIES.indexOf(c);
  return clusters.sort(
    (x, y) => y.count - x.count || order(x.category) - order(y.category) || (x.signature < y.signature ? -1 : x.signature > y.signature ? 1 : 0),
  );
}

/** Failures per category, largest first (API: failures.categories); empty categories omitted. */
export function failureCategoryCounts(rows: Iterable<Pick<FailureRow, "category">>): { category: FailureCategory; count: number }[] {
  const counts = new Map<FailureCategory, number>();
  for (const r of rows) counts.set(r.category, (counts.get(r.category) ?? 0) + 1);
  return FAILURE_CATEGORIES.filter((c) => counts.has(c))
    .map((category) => ({ category, count: counts.get(category)! }))
    .sort((a, b) => b.count - a.count);
}

/**
 * Failure classification, signatures and clustering of rollouts. Pure: no database, no Next.js.
 *
 * Precedence when several reasons apply: a success is never a failure; then a Harbor error type
 * that says on its own who failed (the model provider, a login, the task's healthcheck, the
 * context window: HARBOR_ERROR_CATEGORIES); then what the agent side reported (agent timeout, verifier timeout, context length, format error), because it
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
  /** pytest's session summary line (e.g. "==== 1 failed, 3 passed in 0.5s ===="), when there is one */
  summaryLine: string | null;
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

/*
 * Every pattern below runs on rollout text an ingest key controls (verifier output, error
 * types and messages, final messages), often megabytes without a newline. So no pattern has an
 * unbounded quantifier (`*`, `+`, `{n,}`): each attempt from one start position does work bounded
 * by the pattern alone, which keeps every match linear in the input. lib/analytics/regex-safety.test.ts
 * checks that rule on every pattern literal here and feeds each its worst case.
 */
/** A pytest session summary line; its middle must also match PYTEST_SUMMARY_BODY. */
const PYTEST_SUMMARY = /^={1,200} ([^\n]{1,600}) in [\d.]{1,16}s(?: \([\d:]{1,16}\))? ={1,200}[ \t\r]{0,16}$/gm;
const PYTEST_SUMMARY_BODY = /^no tests ran|\b\d{1,9} (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected)\b/;
const PYTEST_FAILED_LINE = /^(FAILED|ERROR) (\S{1,1000})(?: - |\r?$)/gm;
const UNITTEST_RAN = /^Ran \d{1,9} tests? in [\d.]{1,16}s[ \t\r]{0,16}$/m;
const PYTEST_COLLECTED = /^collected \d{1,9} items?\b/m;
const TOOL_MISSING =
  /(?:^|\s)([\w.+-]{1,128}): command not found[ \t\r]{0,16}$|^\S{0,256}sh: \d{1,9}: ([\w.+-]{1,128}): not found[ \t\r]{0,16}$/m;
const NO_SPACE_LEFT = /No\s{1,32}space\s{1,32}left\s{1,32}on\s{1,32}device/;
const TEST_SCRIPT_NOT_EXECUTABLE = /test\.sh: Permission denied/;
const TEST_SCRIPT_MISSING = /test\.sh: No such file or directory/;

/** Each with a text every match contains: a pattern is tried only where that text occurs (a native search, not the regex at every position). */
const SETUP_FAILURES: ReadonlyArray<[RegExp, (m: RegExpMatchArray) => string, string]> = [
  [TOOL_MISSING, (m) => `${m[1] ?? m[2]}: command not found`, "not found"],
  [NO_SPACE_LEFT, () => "no space left on device", "space"],
  [TEST_SCRIPT_NOT_EXECUTABLE, () => "test script not executable (permission denied)", "test.sh: Permission denied"],
  [TEST_SCRIPT_MISSING, () => "test script missing", "test.sh: No such file or directory"],
];

const SETUP_CAUSES: ReadonlyArray<[RegExp, string]> = [
  [
    /Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock the administration directory/,
    "apt: dpkg lock held by another process",
  ],
  [/dpkg was interrupted/, "apt: dpkg was interrupted"],
  [/Sub-process \/usr\/bin\/dpkg returned an error code/, "apt: dpkg returned an error"],
  [
    /Could not connect to|Unable to connect to|Could not resolve|Temporary failure resolving|Failed to connect to|Couldn't connect to server/,
    "network unreachable",
  ],
  [/curl: \(77\)|certificate file/, "curl: CA certificates missing"],
  [/Unable to locate package/, "apt: package not found"],
  [/is not signed|NO_PUBKEY/, "apt: unsigned repository"],
];

const FATAL_PYTHON_ERROR = /Fatal Python error: ([^\n]{1,240})/;
const CRASH_MARKERS: ReadonlyArray<[RegExp, (m: RegExpMatchArray) => string]> = [
  [FATAL_PYTHON_ERROR, (m) => `Fatal Python error: ${m[1].trim()}`],
  [/^INTERNALERROR>/m, () => "pytest INTERNALERROR"],
  [/^Segmentation fault/m, () => "Segmentation fault"],
  [/^Killed[ \t\r]{0,16}$/m, () => "process killed (out of memory?)"],
  [/^Traceback \(most recent call last\):/m, () => "traceback"],
];

const SUMMARY_PASSED = /\b(\d{1,9}) passed/;
const SUMMARY_FAILED = /\b(\d{1,9}) failed/;
const SUMMARY_ERRORS = /\b(\d{1,9}) errors?\b/;
// excludes "[" too, so attempts from successive "[" never rescan the same characters
const TEST_PARAMETERS = /\[[^\][]{0,1000}\]/g;
const PATH_SEPARATOR = /[\\/]/;

function countOf(summary: string, word: RegExp): number {
  const m = summary.match(word);
  return m ? Number(m[1]) : 0;
}

function pytestSummary(text: string): string {
  for (const m of text.matchAll(PYTEST_SUMMARY)) if (PYTEST_SUMMARY_BODY.test(m[1])) return m[0];
  return "";
}

/** How much of a verifier's output is read: its start (setup, harness errors) and its end (summaries). */
export const VERIFIER_SCAN_HEAD = 32 * 1024;
export const VERIFIER_SCAN_TAIL = 96 * 1024;

/**
 * The part of a verifier's output the parser reads: all of it up to 128 KB (real Harbor outputs
 * stay near 100 KB), else its first 32 KB and last 96 KB (cut at line ends when there are any), so a hostile megabyte
 * costs what 128 KB does.
 */
export function verifierScanText(output: string): string {
  if (output.length <= VERIFIER_SCAN_HEAD + VERIFIER_SCAN_TAIL) return output;
  const head = output.slice(0, VERIFIER_SCAN_HEAD);
  const tail = output.slice(output.length - VERIFIER_SCAN_TAIL);
  const headEnd = head.lastIndexOf("\n");
  const tailStart = tail.indexOf("\n");
  return `${headEnd < 0 ? head : head.slice(0, headEnd + 1)}\n${tailStart < 0 ? tail : tail.slice(tailStart + 1)}`;
}

/** Reads a verifier's console output: did tests run, which failed, did the harness break. */
export function parseVerifierOutput(output: string | null | undefined): VerifierOutputReport {
  const text = verifierScanText(output ?? "");
  const summary = pytestSummary(text);
  const failedTests = new Set<string>();
  for (const m of text.matchAll(PYTEST_FAILED_LINE)) failedTests.add(testName(m[1], m[2]));
  const testsRan = summary !== "" || UNITTEST_RAN.test(text) || failedTests.size > 0;

  let crash: string | null = null;
  for (const [re, label] of CRASH_MARKERS) {
    const m = text.match(re);
    if (m) {
      crash = label(m);
      break;
    }
  }
  let setupFailure: string | null = null;
  for (const [re, label, needle] of SETUP_FAILURES) {
    if (!text.includes(needle)) continue;
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
    summaryLine: summary ? summary.trim() : null,
    passed: countOf(summary, SUMMARY_PASSED),
    failed: countOf(summary, SUMMARY_FAILED),
    errors: countOf(summary, SUMMARY_ERRORS),
    failedTests: [...failedTests].sort(),
    crash,
    setupFailure,
    setupCause,
  };
}

/** `FAILED ../tests/test_outputs.py::test_x[a-1]` -> `test_outputs.py::test_x[*]`. */
function testName(kind: string, id: string): string {
  const [file, ...rest] = id.split("::");
  const base = file.split(PATH_SEPARATOR).pop() ?? file;
  const name = [base, ...rest].join("::").replace(TEST_PARAMETERS, "[*]");
  return kind === "ERROR" ? `ERROR ${name}` : name;
}

// --- Classification -------------------------------------------------------------------

const SETUP_TIMEOUT_TYPES = /SetupTimeout|EnvironmentStartTimeout|StartTimeout|BuildTimeout/i;
const INFRA_ERROR_TYPES = [
  /RewardFile(?:NotFound|Empty)|VerifierOutputParse|Environment|Sandbox|Docker|Daytona|Modal|Kubernetes|Container/i,
  /Connection|Network|Setup|OutOfMemory|Infra|Build/i,
];
const isInfraErrorType = (type: string) => INFRA_ERROR_TYPES.some((pattern) => pattern.test(type));

/**
 * Harbor's typed errors, by class name, and who they blame. The name decides: their message is
 * `Command failed (exit N): <agent CLI>` followed by the agent's stdout and stderr, which can say
 * anything (a model musing about rate limits or context windows), so no message pattern overrides it.
 */
const HARBOR_ERROR_CATEGORIES: ReadonlyMap<string, FailureCategory> = new Map<string, FailureCategory>([
  // src/harbor/agents/installed/base.py: the model provider's API failed (ApiError and its
  // subclasses, matched on the agent CLI's output) or the agent CLI could not log in or use the
  // model. The provider, the account or the job's config failed; the policy never got its turn.
  ["ApiError", "infra_error"],
  ["ApiRateLimitError", "infra_error"],
  ["ApiUsageLimitError", "infra_error"],
  ["ApiInternalServerError", "infra_error"],
  ["ApiOverloadedError", "infra_error"],
  ["ApiConnectionClosedError", "infra_error"],
  ["ApiResponseStalledError", "infra_error"],
  ["ApiProviderResourceNotFoundError", "infra_error"],
  ["UnknownApiError", "infra_error"],
  ["AgentAuthenticationError", "infra_error"],
  ["ModelNotFoundError", "infra_error"],
  ["NetworkConnectionError", "infra_error"],
  // base.py: "the request exceeded the model's context window" (input token count exceeds the maximum)
  ["ContextWindowExceededError", "context_length_exceeded"],
  // base.py: "the model response exceeded the configured output token maximum": the policy wrote
  // more than one response may hold, a token budget it ran out of, like a context window
  ["OutputTokenExceededError", "context_length_exceeded"],
  // base.py: the provider blocked the request on safety grounds, deterministically; Harbor keeps
  // the type apart so that "a legitimate model refusal (a real reward 0 outcome)" does not read as
  // a flaky API error: the attempt's own content, not infrastructure
  ["AgentSafetyRefusalError", "errored_other"],
  // src/harbor/auth/errors.py: Harbor's own login (harbor auth login, API-key exchange)
  ["AuthenticationError", "infra_error"],
  ["NotAuthenticatedError", "infra_error"],
  ["ApiKeyRejectedError", "infra_error"],
  ["OAuthCallbackError", "infra_error"],
  // src/harbor/environments/base.py: the task's healthcheck failed before the agent's step began
  ["HealthcheckError", "infra_error"],
  // src/harbor/environments/singularity/singularity.py: the memory watchdog killed the container
  // when the processes in it (the agent's commands) passed 95% of the task's own memory_mb: the
  // attempt overran the task's memory budget, as an agent timeout overruns its time budget
  ["MemoryLimitExceededError", "errored_other"],
]);

/** The category Harbor's error type decides on its own (a qualified name is read by its last part), else undefined. */
function harborErrorCategory(type: string): FailureCategory | undefined {
  return HARBOR_ERROR_CATEGORIES.get(type.slice(type.lastIndexOf(".") + 1).trim());
}

/** Harbor's "the verifier left no usable reward" errors: the harness or the agent may be the cause. */
const VERIFIER_RESULT_TYPES = /RewardFile(?:NotFound|Empty)|VerifierOutputParse/;

function successOf(input: RolloutFailureInput): boolean {
  if (typeof input.reward === "number" && Number.isFinite(input.reward)) {
    return input.reward >= (input.threshold ?? DEFAULT_SUCCESS_THRESHOLD);
  }
  return input.success === true;
}

const AGENT_TIMEOUT_TYPE = /AgentTimeout/i;
const VERIFIER_TIMEOUT_TYPE = /VerifierTimeout/i;
const TIMEOUT_TYPE = /Timeout/i;
const AGENT_WORD = /\bagent\b/i;
const VERIFIER_WORD = /verifier/i;
const VERIFIER_TIMEOUT_MESSAGE = /verifier|tests? timed out/i;

function isAgentTimeout(type: string, message: string): boolean {
  return AGENT_TIMEOUT_TYPE.test(type) || (TIMEOUT_TYPE.test(type) && AGENT_WORD.test(message) && !VERIFIER_WORD.test(message));
}

function isVerifierTimeout(type: string, message: string): boolean {
  return VERIFIER_TIMEOUT_TYPE.test(type) || (TIMEOUT_TYPE.test(type) && VERIFIER_TIMEOUT_MESSAGE.test(message));
}

// "input token count (N) exceeds": the wording Harbor's ContextWindowExceededError is matched on (agents/installed/base.py)
const CONTEXT_LENGTH =
  /context[_ ]?length|context[_ ]?window|maximum context|prompt is too long|too many tokens|max_model_len|input tokens? (?:count (?:\(\d{1,12}\) )?)?exceed/i;
const FORMAT_ERROR_TYPE = /Format|(?<!Verifier)Output(?:Parse)?Error|ParseError|ToolCallError/i;
const FORMAT_ERROR_FINAL = /^\s{0,256}Format error\b|did not include a valid .{0,40}tool call|invalid tool call/i;

/** How much of an error type, and of a message, the classifier reads (they say what they are up front). */
const TYPE_SCAN_MAX = 1024;
const MESSAGE_SCAN_MAX = 16 * 1024;

/** Failure category of a rollout, or null when it succeeded. */
export function classifyRollout(input: RolloutFailureInput): FailureCategory | null {
  if (successOf(input)) return null;
  const type = (input.errorType ?? "").slice(0, TYPE_SCAN_MAX);
  const message = (input.errorMessage ?? "").slice(0, MESSAGE_SCAN_MAX);
  const finalMessage = (input.finalMessage ?? "").slice(0, MESSAGE_SCAN_MAX);
  const hasVerdict = input.hasVerdict ?? (typeof input.reward === "number" && Number.isFinite(input.reward));

  const harborCategory = type ? harborErrorCategory(type) : undefined;
  if (harborCategory) return harborCategory;
  if (type && SETUP_TIMEOUT_TYPES.test(type)) return "infra_error";
  if (type && isAgentTimeout(type, message)) return "agent_timeout";
  if (type && isVerifierTimeout(type, message)) return "verifier_timeout";
  if (CONTEXT_LENGTH.test(type) || CONTEXT_LENGTH.test(message) || CONTEXT_LENGTH.test(finalMessage)) {
    return "context_length_exceeded";
  }
  if ((type && FORMAT_ERROR_TYPE.test(type) && !isInfraErrorType(type)) || FORMAT_ERROR_FINAL.test(finalMessage)) {
    return "format_error";
  }
  if (type && VERIFIER_RESULT_TYPES.test(type) && (input.environmentDamage?.length ?? 0) > 0) return "environment_broken_by_agent";
  if (type && isInfraErrorType(type)) return "infra_error";

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
/** How much of a message's first line is normalized: the signature keeps at most 240 characters of it. */
const SIGNATURE_INPUT_MAX = 2000;

const URL = /\b[a-z][a-z0-9+.-]{0,31}:\/\/\S{1,2000}/gi;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const HEX_LITERAL = /\b0x[0-9a-f]{1,2000}\b/gi;
const PATH = /(?<![\w<])(?:[A-Za-z]:)?(?:~|\.{1,2})?(?:[\\/][\w.@+-]{1,2000}){1,2000}[\\/]?/g;
const HEX_RUN = /\b(?=[0-9a-f]{0,2000}\d)(?=[0-9a-f]{0,2000}[a-f])[0-9a-f]{8,2000}\b/gi;
const MIXED_ID = /\b(?=\w{0,2000}\d)(?=\w{0,2000}[A-Za-z])[A-Za-z0-9_-]{6,2000}\b/g;
/** a word with a one- or two-digit suffix (`step2`, `py39`) stays: it names something, not an instance */
const NUMBERED_WORD = /^[A-Za-z_]{1,2000}\d{1,2}$/;
const NUMBER = /\b\d{1,2000}(?:[.,]\d{1,2000}){0,2000}(?:e[-+]?\d{1,2000})?\b/gi;
const WHITESPACE_RUN = /\s{1,2000}/g;

/** The first non-empty line of a message, at most SIGNATURE_INPUT_MAX characters of it. */
function firstLine(message: string): string {
  const text = message.trimStart();
  const end = text.indexOf("\n");
  return text.slice(0, Math.min(end < 0 ? text.length : end, SIGNATURE_INPUT_MAX));
}

/**
 * Strips what varies between occurrences of the same failure: urls, uuids, hex hashes and
 * addresses, paths, mixed letter/digit ids, numbers; keeps the first non-empty line.
 */
export function normalizeMessage(message: string | null | undefined): string {
  const out = firstLine(message ?? "")
    .replace(URL, "<url>")
    .replace(UUID, "<uuid>")
    .replace(HEX_LITERAL, "<hex>")
    .replace(PATH, "<path>")
    .replace(HEX_RUN, "<hex>")
    .replace(MIXED_ID, (m) => (NUMBERED_WORD.test(m) ? m : "<id>"))
    .replace(NUMBER, "<n>")
    .replace(WHITESPACE_RUN, " ")
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
  const type = (input.errorType ?? "").slice(0, SIGNATURE_MAX);
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

const utf8 = new TextEncoder();
const hex4 = (limb: number) => limb.toString(16).padStart(4, "0");

/**
 * Stable id of a cluster: FNV-1a 64 of category and signature (UTF-8), 16 hex digits. The 64-bit state is kept as four
 * 16-bit limbs in small integers and an ASCII text is hashed from its char codes without encoding it: BigInt arithmetic
 * per byte made this 0.9 s of the server's CPU over three 1,000,000-rollout proposals (the summary names the cluster of
 * each of its ~40,000 per-environment failure rows, issue 19). The prime is 2^40 + 0x1b3, so
 * h * prime mod 2^64 = h * 0x1b3 + (h << 40), and h << 40 moves limbs 0 and 1 into limbs 2 and 3, 8 bits up.
 */
export function clusterId(category: FailureCategory, signature: string): string {
  const text = `${category}\u0000${signature}`;
  let bytes: Uint8Array | null = null;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) {
      bytes = utf8.encode(text);
      break;
    }
  }
  const length = bytes ? bytes.length : text.length;
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (let i = 0; i < length; i++) {
    h0 ^= bytes ? bytes[i] : text.charCodeAt(i);
    const a0 = h0 * 0x1b3;
    const a1 = h1 * 0x1b3 + (a0 >>> 16);
    const a2 = h2 * 0x1b3 + (a1 >>> 16) + ((h0 << 8) & 0xffff);
    const a3 = h3 * 0x1b3 + (a2 >>> 16) + (h0 >>> 8) + ((h1 << 8) & 0xffff);
    h0 = a0 & 0xffff;
    h1 = a1 & 0xffff;
    h2 = a2 & 0xffff;
    h3 = a3 & 0xffff;
  }
  return hex4(h3) + hex4(h2) + hex4(h1) + hex4(h0);
}

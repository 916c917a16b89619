/**
 * Regular expressions that run on rollout text (verifier output, error types and messages, final
 * messages, trajectories) cannot backtrack catastrophically. The rule, checked structurally: no
 * pattern in these files has an unbounded quantifier (`*`, `+`, `{n,}`), so the work of one match
 * attempt is bounded by the pattern alone and a scan is linear in the input; and no pattern is
 * built at run time. Then each pattern gets its worst case at 1 MB through the public functions
 * (a quadratic pattern would not finish within the test timeout; the time itself is measured in
 * bench/regex.ts, not asserted here).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { environmentDamage, isPackageInstall } from "./blame";
import {
  classifyRollout,
  failureSignature,
  normalizeMessage,
  parseVerifierOutput,
  VERIFIER_SCAN_HEAD,
  VERIFIER_SCAN_TAIL,
} from "./failures";

const ROOT = path.resolve(import.meta.dirname, "../..");
const MB = 1 << 20;

/** Files whose patterns see rollout text. */
function scannedFiles(): string[] {
  const dirs = ["lib/analytics", "lib/ingest", "lib/rollouts"];
  const files: string[] = [];
  for (const dir of dirs) {
    for (const f of readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })) {
      if (f.endsWith(".ts") && !f.endsWith(".test.ts")) files.push(`${dir}/${f}`);
    }
  }
  return files;
}

/** Regex literals (and `new RegExp` calls) of a TypeScript file, by line. */
function regexLiterals(file: string): { line: number; source: string; dynamic: boolean }[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: { line: number; source: string; dynamic: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const lit = (node as ts.RegularExpressionLiteral).text;
      out.push({
        line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        source: lit.slice(1, lit.lastIndexOf("/")),
        dynamic: false,
      });
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "RegExp") {
      out.push({ line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, source: node.getText(), dynamic: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The unbounded quantifiers of a pattern source (outside character classes and escapes). */
function unboundedQuantifiers(source: string): string[] {
  const found: string[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "*" || c === "+") found.push(`${c} at ${i}`);
    else if (c === "{") {
      const m = /^\{\d{1,9},\}/.exec(source.slice(i, i + 12));
      if (m) found.push(`${m[0]} at ${i}`);
    }
  }
  return found;
}

describe("the linearity rule", () => {
  it("catches what backtracks", () => {
    for (const bad of ["a+", ".*", "(\\d+)*", "x{2,}", "[a]+", "(?:a|b)*?"]) expect(unboundedQuantifiers(bad), bad).not.toEqual([]);
    for (const ok of ["a{1,3}", "\\d{0,9}", "[+*{]", "\\*\\+", "a?b?", "\\{2,\\}"]) expect(unboundedQuantifiers(ok), ok).toEqual([]);
  });

  it.each(scannedFiles())("%s has no unbounded quantifier and no run-time pattern", (file) => {
    const offending = regexLiterals(file)
      .filter((r) => r.dynamic || unboundedQuantifiers(r.source).length > 0)
      .map((r) => `${file}:${r.line} ${r.dynamic ? r.source : `/${r.source}/ (${unboundedQuantifiers(r.source).join(", ")})`}`);
    expect(offending).toEqual([]);
  });

  it("finds the patterns it checks", () => {
    // guards the scanner itself: failures.ts has dozens of patterns
    expect(regexLiterals("lib/analytics/failures.ts").length).toBeGreaterThan(30);
  });
});

/** `unit` repeated to at least `size` characters. */
function repeat(unit: string, size = MB): string {
  return unit.repeat(Math.ceil(size / unit.length));
}

describe("worst cases at 1 MB", () => {
  it("pytest summary: a line of '=' and one of count words that never reaches ' in Ns ='", () => {
    expect(parseVerifierOutput(repeat("=")).testsRan).toBe(false);
    expect(parseVerifierOutput(`= ${repeat("1 passed ")}`).testsRan).toBe(false);
    expect(parseVerifierOutput(repeat("= 1 passed in 1s\n")).testsRan).toBe(false);
    // the real line still counts after a megabyte of noise
    const r = parseVerifierOutput(`${repeat("= 1 passed 2 ")}\n===== 3 failed, 4 passed in 0.50s =====\n`);
    expect(r).toMatchObject({ testsRan: true, failed: 3, passed: 4 });
  });

  it("count words: a megabyte of digits", () => {
    expect(parseVerifierOutput(`=== ${repeat("1")} passed in 1s ===`).passed).toBe(0);
  });

  it("FAILED lines: ids without an end, and many of them", () => {
    expect(parseVerifierOutput(`FAILED ${repeat("a")}`).failedTests).toEqual([]);
    const many = parseVerifierOutput(repeat("FAILED t.py::x[[[[[[[[\n"));
    expect(many.failedTests).toEqual(["t.py::x[[[[[[[["]);
    expect(parseVerifierOutput(`FAILED t.py::x[${repeat("[")}`).testsRan).toBe(false);
  });

  it("test parameters: a megabyte of '['", () => {
    const r = parseVerifierOutput(`FAILED t.py::x${"[".repeat(900)}]\n`);
    expect(r.failedTests).toEqual([`t.py::x${"[".repeat(899)}[*]`]);
  });

  it("unittest summary and crash markers: near misses repeated", () => {
    const r = parseVerifierOutput(repeat("Ran 1 tests in 1.0sx\nKilledx\nFatal Python error:\n"));
    expect(r).toMatchObject({ testsRan: false, crash: null });
    expect(parseVerifierOutput(`${repeat("Fatal Python error: ")}`).crash).toMatch(/^Fatal Python error: Fatal Python error:/);
  });

  it("missing tools: a whitespace-free megabyte and words that never say 'command not found'", () => {
    expect(parseVerifierOutput(repeat("a")).setupFailure).toBeNull();
    expect(parseVerifierOutput(repeat("a: command not foun ")).setupFailure).toBeNull();
    expect(parseVerifierOutput(`${repeat("sh")}: 1: x: not found\n`).setupFailure).toBeNull();
    expect(parseVerifierOutput(`${repeat("a b ")}\ncurl: command not found\n`).setupFailure).toBe("curl: command not found");
  });

  it("setup failures and causes: spaces without the rest, test.sh without its error", () => {
    const r = parseVerifierOutput(`x: command not found\n${repeat("No ")}${repeat(" ")}${repeat("test.sh")}${repeat("The repository ")}`);
    expect(r).toMatchObject({ setupFailure: "x: command not found", setupCause: null });
  });

  it("reads a long output's first 32 KB and last 96 KB, not its middle", () => {
    const filler = repeat("x\n", VERIFIER_SCAN_HEAD + VERIFIER_SCAN_TAIL);
    expect(parseVerifierOutput(`curl: command not found\n${filler}`).setupFailure).toBe("curl: command not found");
    expect(parseVerifierOutput(`${filler}=== 2 passed in 1.0s ===\n`).passed).toBe(2);
    expect(parseVerifierOutput(`${filler}curl: command not found\n${filler}`).setupFailure).toBeNull();
  });

  it("classification: a megabyte error type, message and final message", () => {
    const input = {
      reward: 0,
      errorType: repeat("Timeou"),
      errorMessage: repeat("agen verifie "),
      finalMessage: `${repeat(" ")}did not include a valid `,
    };
    expect(classifyRollout(input)).toBe("errored_other");
    expect(classifyRollout({ reward: 0, finalMessage: repeat("did not include a valid ") })).toBe("verifier_failed");
  });

  it("signatures: every normalizing pattern on its worst line", () => {
    for (const unit of ["a.", "1a-", "0x", "/a", "[", "1.", "1e", "a1-", "-"]) {
      const sig = normalizeMessage(repeat(unit));
      expect(sig.length, unit).toBeLessThanOrEqual(240);
    }
    expect(normalizeMessage(repeat("a.a.a://"))).toMatch(/^a\.a\.a:\/\/|<url>/);
    expect(normalizeMessage(`${" \n".repeat(MB)}real error 42`)).toBe("real error <n>");
    expect(failureSignature({ reward: 0, errorType: repeat("E"), errorMessage: repeat("x1") }).length).toBeLessThanOrEqual(240);
  });

  it("agent commands: options that never reach 'install', package managers inside flags", () => {
    expect(isPackageInstall(repeat("apt -apt "))).toBe(false);
    expect(isPackageInstall(repeat("apt-get -y "))).toBe(false);
    const commands = [repeat("apt -apt "), repeat("kill dpkg"), repeat("rm /var"), repeat("apt-get x")].map((command, i) => ({
      step: i + 1,
      command,
      exitCode: 1,
    }));
    expect(environmentDamage(commands).map((d) => d.kind)).toEqual(["killed_package_manager"]);
  });
});

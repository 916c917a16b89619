import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Pages and components draw buttons and tables with components/ui's Button and Table (issue 12): one
// look, one place for keyboard and screen-reader behaviour. Only components/ui may write the raw elements.
const ROOT = path.resolve(import.meta.dirname, "../..");
const RAW = /<(button|table)(?=[\s>/]|$)/g;

/** Every raw <button>/<table> in a TSX source, as "line: element". */
function rawElements(source: string): string[] {
  const found: string[] = [];
  source.split("\n").forEach((line, i) => {
    for (const match of line.matchAll(RAW)) found.push(`${i + 1}: <${match[1]}>`);
  });
  return found;
}

function tsxFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".tsx"))
    .map((f) => path.join(folder, f));
}

describe("UI primitives", () => {
  it("the check finds raw buttons and tables, and not the primitives", () => {
    expect(rawElements('<div>\n  <button type="button">x</button>\n  <table>\n</div>')).toEqual(["2: <button>", "3: <table>"]);
    expect(rawElements("<button\n  onClick={f}\n>")).toEqual(["1: <button>"]);
    expect(rawElements('<Button variant="link">x</Button>\n<Table columns={c} />\n<tbody><tr><td /></tr></tbody>')).toEqual([]);
  });

  it("no page or component outside components/ui writes a raw <button> or <table>", () => {
    const files = [...tsxFiles("app"), ...tsxFiles("components")].filter((f) => !f.startsWith(path.join("components", "ui")));
    expect(files.length).toBeGreaterThan(20);
    const offenders = files.flatMap((f) => rawElements(readFileSync(path.join(ROOT, f), "utf8")).map((hit) => `${f}:${hit}`));
    expect(offenders, "use Button / Table from components/ui").toEqual([]);
  });
});

import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { dateTime, passAtKShown, usd } from "@/components/ui/format";

describe("dateTime", () => {
  it("shows a moment in UTC to the minute, or to the second when asked", () => {
    expect(dateTime("2026-11-30T23:47:05.123Z")).toBe("2026-11-30 23:47 UTC");
    expect(dateTime(new Date("2026-11-30T23:47:05.123+02:00"), { seconds: true })).toBe("2026-11-30 21:47:05 UTC");
  });

  it("an absent or unreadable moment is an em dash", () => {
    for (const v of [null, undefined, "", "not a date"]) expect(dateTime(v)).toBe("—");
  });
});

describe("usd", () => {
  it("dollars with two decimals and thousands separators; zero is $0.00, unknown an em dash", () => {
    expect(usd(1234.5)).toBe("$1,234.50");
    expect(usd(0)).toBe("$0.00");
    expect(usd(0.004)).toBe("$0.00");
    expect(usd(0.125)).toBe("$0.13");
    expect(usd(null)).toBe("—");
  });
});

/** Every .ts/.tsx file under a folder, skipping API routes (they serialise, they do not display). */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return p.endsWith(path.join("app", "api")) ? [] : sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

describe("one date format", () => {
  it("pages and components format displayed dates only through dateTime", () => {
    const root = path.resolve(import.meta.dirname, "../..");
    const ownDateFormatting = /toLocale(Date|Time)?String\(\)|Intl\.DateTimeFormat|\.replace\("T", " "\)|\.slice\(11, (16|19)\)/;
    const offenders = [...sources(path.join(root, "components")), ...sources(path.join(root, "app"))]
      .filter((f) => !f.endsWith(path.join("components", "ui", "format.ts")))
      .filter((f) => ownDateFormatting.test(fs.readFileSync(f, "utf8")))
      .map((f) => path.relative(root, f));
    expect(offenders).toEqual([]);
  });
});

describe("passAtKShown", () => {
  it("keeps k = 1, 2, 5, 10, 20, 50, ... and the largest k, in order, with their values", () => {
    const curve: Record<string, number> = {};
    for (let k = 1; k <= 14651; k++) curve[String(k)] = 1 - 1 / (k + 1);
    const shown = passAtKShown(curve);
    expect(shown.map(([k]) => k)).toEqual([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 14651]);
    expect(shown[3]).toEqual([10, curve["10"]]);
  });
  it("a short curve shows what it has; the largest k once", () => {
    expect(passAtKShown({ "3": 0.9, "1": 0.5, "2": 0.75 }).map(([k]) => k)).toEqual([1, 2, 3]);
    expect(passAtKShown({ "1": 0.5, "2": 0.7 }).map(([k]) => k)).toEqual([1, 2]);
    expect(passAtKShown({})).toEqual([]);
  });
});

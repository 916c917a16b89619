import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { dateTime, usd } from "@/components/ui/format";

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

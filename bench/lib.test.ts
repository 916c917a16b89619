import { describe, expect, it } from "vitest";
import { engineerSeedsFlag, flagValue, withRecordedSection } from "./lib";

const doc =
  "# Benchmarks\n\nIntro.\n\n## Ingest (`npm run bench:ingest`)\nOld run: 100/s.\n\n### Earlier\nOlder run: 50/s.\n\n## Viewer\nViewer run.\n";

describe("withRecordedSection", () => {
  it("puts the new run first and keeps the section's earlier runs below it", () => {
    const out = withRecordedSection(doc, "Ingest (`npm run bench:ingest`)", "New run: 200/s.");
    expect(out).toBe(
      "# Benchmarks\n\nIntro.\n\n## Ingest (`npm run bench:ingest`)\nNew run: 200/s.\n\n" +
        "Old run: 100/s.\n\n### Earlier\nOlder run: 50/s.\n\n## Viewer\nViewer run.\n",
    );
  });

  it("leaves the other sections untouched, the last section included", () => {
    const out = withRecordedSection(doc, "Viewer", "Viewer again.");
    expect(out.startsWith(doc.slice(0, doc.indexOf("## Viewer")))).toBe(true);
    expect(out.endsWith("## Viewer\nViewer again.\n\nViewer run.\n")).toBe(true);
  });

  it("adds a section not there yet at the end, and does not match a heading that only starts the same", () => {
    const out = withRecordedSection(doc, "Ingest", "Other.");
    expect(out).toBe(`${doc}\n## Ingest\nOther.\n`);
  });
});

describe("flagValue", () => {
  const argv = ["--seeds", "5", "--traps", "-0.1", "--quick", "--family"];
  it("reads the value after a flag, and the fallback when the flag is absent", () => {
    expect(flagValue("--seeds", "10", argv)).toBe("5");
    expect(flagValue("--traps", "0.15", argv)).toBe("-0.1");
    expect(flagValue("--learner", "default", argv)).toBe("default");
  });
  it("refuses a flag given last or followed by another flag, naming it", () => {
    expect(() => flagValue("--family", "search-agent", argv)).toThrow("--family needs a value");
    expect(() => flagValue("--seeds", "10", ["--seeds", "--quick"])).toThrow("--seeds needs a value");
  });
});

describe("engineerSeedsFlag", () => {
  it("reads a comma list, and the fallback when the flag is absent", () => {
    expect(engineerSeedsFlag("0", ["--engineer-seeds", "0,1,4"])).toEqual([0, 1, 4]);
    expect(engineerSeedsFlag("0,1,2,3,4", ["--seeds", "3"])).toEqual([0, 1, 2, 3, 4]);
  });

  it("refuses an empty list and an entry that is not a whole number >= 0, by name", () => {
    expect(() => engineerSeedsFlag("0", ["--engineer-seeds", ","])).toThrow("--engineer-seeds: give at least one");
    for (const bad of ["-1", "1.5", "x", "1,,-2"])
      expect(() => engineerSeedsFlag("0", ["--engineer-seeds", bad]), bad).toThrow(/--engineer-seeds: .* is not a whole number >= 0/);
  });
});

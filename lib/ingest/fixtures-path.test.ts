import { describe, expect, it } from "vitest";
import { fixturesDir } from "./fixtures-path";

describe("fixturesDir", () => {
  const missing = "/nonexistent/envforge-fixtures";

  it("fails naming the path when the fixtures are missing under CI=true", () => {
    expect(() => fixturesDir({ ENVFORGE_FIXTURES: missing, CI: "true" })).toThrow(
      /fixtures are missing at \/nonexistent\/envforge-fixtures and CI=true/,
    );
  });

  it("returns null outside CI so local runs skip, and the path when present", () => {
    expect(fixturesDir({ ENVFORGE_FIXTURES: missing })).toBeNull();
    expect(fixturesDir({ ENVFORGE_FIXTURES: __dirname, CI: "true" })).toBe(__dirname);
  });
});

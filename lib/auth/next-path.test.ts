import { describe, expect, it } from "vitest";
import { safeNextPath } from "./next-path";

describe("next= after sign-in", () => {
  it("keeps same-origin relative paths with their query and hash", () => {
    expect(safeNextPath("/projects/demo-frozenlake/generations/3")).toBe("/projects/demo-frozenlake/generations/3");
    expect(safeNextPath("/projects/x?tab=failures#top")).toBe("/projects/x?tab=failures#top");
    expect(safeNextPath("/search?q=a%20b")).toBe("/search?q=a%20b");
  });

  it("falls back to / for anything that could leave the site", () => {
    const hostile = [
      "//evil.com",
      "/\\evil.com",
      "\\\\evil.com",
      "/\t/evil.com",
      "/\n/evil.com",
      "/%09/evil.com",
      "/%5Cevil.com",
      "/%5cevil.com",
      "%2F%2Fevil.com",
      "/%2F/evil.com",
      "/%2f%2fevil.com",
      "/%252F/evil.com",
      "/%255Cevil.com",
      "https://evil.com",
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "/%E0%A4%A",
      "evil.com",
      "",
      " //evil.com",
    ];
    for (const next of hostile) expect(safeNextPath(next), JSON.stringify(next)).toBe("/");
    expect(safeNextPath(undefined)).toBe("/");
    expect(safeNextPath(["/a", "/b"])).toBe("/");
  });
});

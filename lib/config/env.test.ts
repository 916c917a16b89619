import { describe, expect, it } from "vitest";
import { loadSettings, SettingsError } from "./env";

describe("loadSettings", () => {
  it("applies the documented defaults and seeds the demo only on the embedded database", () => {
    const s = loadSettings({}, "/srv/app");
    expect(s).toMatchObject({ PORT: 3000, HOST: "127.0.0.1", dataDir: "/srv/app/.envforge", demo: true, ENVFORGE_MAX_BODY_MB: 256 });
    expect(loadSettings({ DATABASE_URL: "postgres://u:p@db:5432/x" }, "/srv").demo).toBe(false);
    expect(loadSettings({ DATABASE_URL: "postgres://u:p@db:5432/x", ENVFORGE_DEMO: "1" }, "/srv").demo).toBe(true);
    expect(loadSettings({ ENVFORGE_DEMO: "0" }, "/srv").demo).toBe(false);
  });

  it("names the bad setting in one sentence", () => {
    expect(() => loadSettings({ PORT: "eighty" })).toThrow(SettingsError);
    expect(() => loadSettings({ PORT: "eighty" })).toThrow(/^Setting PORT="eighty" is not valid/);
    expect(() => loadSettings({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL.*postgres:\/\//);
    expect(() => loadSettings({ ENVFORGE_BOOTSTRAP_TOKEN: "short" })).toThrow(/ENVFORGE_BOOTSTRAP_TOKEN.*16 characters/);
    expect(() => loadSettings({ ENVFORGE_DEMO: "maybe" })).toThrow(/ENVFORGE_DEMO/);
  });
});

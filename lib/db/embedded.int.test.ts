import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { nativeDir, startEmbeddedPostgres } from "./embedded";

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;

describe("embedded Postgres", () => {
  it("starts, keeps data across restarts, and stops its process", async () => {
    const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), "ef-emb-"));
    await fsp.chmod(dataDir, 0o755);
    const first = await startEmbeddedPostgres({ dataDir });
    const c1 = new pg.Client({ connectionString: first.url });
    await c1.connect();
    await c1.query("create table kept (v int); insert into kept values (42)");
    await c1.end();
    await first.stop();
    const second = await startEmbeddedPostgres({ dataDir });
    const c2 = new pg.Client({ connectionString: second.url });
    await c2.connect();
    expect((await c2.query("select v from kept")).rows[0].v).toBe(42);
    await c2.end();
    await second.stop();
    expect(fs.existsSync(path.join(second.clusterDir, "postmaster.pid"))).toBe(false);
  });

  it("two starting at the same moment (both find the same port free) each end on a port of its own", async () => {
    const dirs = await Promise.all([0, 1].map(() => fsp.mkdtemp(path.join(os.tmpdir(), "ef-emb-race-"))));
    for (const d of dirs) {
      await fsp.chmod(d, 0o755);
      await (await startEmbeddedPostgres({ dataDir: d })).stop(); // initdb first: the starts below race only for the port
    }
    const lines: string[] = [];
    const both = await Promise.all(dirs.map((dataDir) => startEmbeddedPostgres({ dataDir, log: (l) => lines.push(l) })));
    try {
      expect(both[0].port).not.toBe(both[1].port);
      for (const db of both) {
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        expect((await c.query("select 1 as one")).rows[0].one).toBe(1);
        await c.end();
      }
    } finally {
      await Promise.all(both.map((db) => db.stop()));
      await Promise.all(dirs.map((d) => fsp.rm(d, { recursive: true, force: true })));
    }
  });

  // Postgres refuses root: as root it runs as `postgres`, which cannot traverse 0700 folders like /root
  it.skipIf(!isRoot)("as root, relocates binaries and data that the postgres user cannot reach, and says where", async () => {
    const locked = await fsp.mkdtemp(path.join(os.tmpdir(), "ef-locked-"));
    await fsp.chmod(locked, 0o700);
    const native = path.join(locked, "native");
    await fsp.cp(await nativeDir(), native, { recursive: true, verbatimSymlinks: true });
    const cache = await fsp.mkdtemp(path.join(os.tmpdir(), "ef-cache-"));
    const lines: string[] = [];
    const dataDir = path.join(locked, "project", ".envforge");
    const db = await startEmbeddedPostgres({ dataDir, native, rootCacheDir: cache, log: (l) => lines.push(l) });
    try {
      expect(db.binDir.startsWith(cache)).toBe(true);
      expect(db.clusterDir.startsWith(cache)).toBe(true);
      expect(lines.join("\n")).toContain(db.clusterDir);
      expect(fs.readFileSync(path.join(dataDir, "pg-location"), "utf8").trim()).toBe(db.clusterDir);
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      expect((await c.query("select current_user")).rows[0].current_user).toBe("postgres");
      await c.end();
    } finally {
      await db.stop();
    }
    // a second start finds the relocated cluster again
    const again = await startEmbeddedPostgres({ dataDir, native, rootCacheDir: cache });
    expect(again.clusterDir).toBe(db.clusterDir);
    await again.stop();
    // a fresh clone at the same path (new data folder, new password) gets a cluster it can sign in to
    await fsp.rm(dataDir, { recursive: true, force: true });
    const cloneLines: string[] = [];
    const fresh = await startEmbeddedPostgres({ dataDir, native, rootCacheDir: cache, log: (l) => cloneLines.push(l) });
    try {
      expect(fresh.clusterDir).toBe(db.clusterDir);
      expect(cloneLines.join("\n")).toMatch(/moved it to .*orphaned-/);
      const c = new pg.Client({ connectionString: fresh.url });
      await c.connect();
      await c.end();
    } finally {
      await fresh.stop();
    }
    await fsp.rm(locked, { recursive: true, force: true });
    await fsp.rm(cache, { recursive: true, force: true });
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { HARDLINK_REFUSED, LINK_REFUSED, SafeTree, SPECIAL_REFUSED, UnsafeEntryError } from "./safe-tree";

const made: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ef-safe-tree-"));
  made.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("SafeTree.readFile", () => {
  it("refuses a folder swapped for a link after a first read went through it, and never returns the outside bytes", async () => {
    const root = tempDir();
    const outside = tempDir();
    fs.mkdirSync(path.join(root, "trial", "agent"), { recursive: true });
    fs.writeFileSync(path.join(root, "trial", "agent", "a.json"), "inside");
    fs.mkdirSync(path.join(outside, "agent"));
    fs.writeFileSync(path.join(outside, "agent", "b.json"), "SECRET");
    const tree = await SafeTree.open(root);
    expect((await tree.readFile(path.join(root, "trial", "agent", "a.json")))?.toString()).toBe("inside");

    // the folder the first read found real (and remembered) becomes a link out of the tree
    fs.rmSync(path.join(root, "trial"), { recursive: true });
    fs.symlinkSync(outside, path.join(root, "trial"));
    const read = tree.readFile(path.join(root, "trial", "agent", "b.json"));
    await expect(read).rejects.toBeInstanceOf(UnsafeEntryError);
    await expect(read).rejects.toThrow(LINK_REFUSED);
  });

  it("names the linked folder when the first read meets it", async () => {
    const root = tempDir();
    const outside = tempDir();
    fs.writeFileSync(path.join(outside, "b.json"), "SECRET");
    fs.symlinkSync(outside, path.join(root, "trial"));
    const tree = await SafeTree.open(root);
    await expect(tree.readFile(path.join(root, "trial", "b.json"))).rejects.toThrow(`trial: ${LINK_REFUSED}`);
  });

  it("reads a file that appears in a folder it already went through, and says undefined for one that does not exist", async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, "trial"));
    const tree = await SafeTree.open(root);
    expect(await tree.readFile(path.join(root, "trial", "x.txt"))).toBeUndefined();
    fs.writeFileSync(path.join(root, "trial", "x.txt"), "later");
    expect((await tree.readFile(path.join(root, "trial", "x.txt")))?.toString()).toBe("later");
    expect(await tree.readFile(path.join(root, "nope", "x.txt"))).toBeUndefined();
  });

  it("reads small files and files over the synchronous limit byte for byte", async () => {
    const root = tempDir();
    fs.mkdirSync(path.join(root, "t"));
    const small = Buffer.from("héllo \u0000 wörld");
    // over 1 MiB: read through the thread pool; bytes that are not UTF-8 must come back unchanged
    const large = Buffer.alloc(3 * 1024 * 1024 + 17, 0);
    for (let i = 0; i < large.length; i++) large[i] = (i * 131 + 7) & 0xff;
    fs.writeFileSync(path.join(root, "t", "small.bin"), small);
    fs.writeFileSync(path.join(root, "t", "large.bin"), large);
    fs.writeFileSync(path.join(root, "t", "empty.bin"), "");
    const tree = await SafeTree.open(root);
    expect((await tree.readFile(path.join(root, "t", "small.bin")))?.equals(small)).toBe(true);
    expect((await tree.readFile(path.join(root, "t", "large.bin")))?.equals(large)).toBe(true);
    expect((await tree.readFile(path.join(root, "t", "empty.bin")))?.length).toBe(0);
  });

  it("refuses a link as the file itself, a hard link, a FIFO (without hanging) and a file over the limit, naming each", async () => {
    const root = tempDir();
    const outside = tempDir();
    fs.writeFileSync(path.join(outside, "secret"), "SECRET");
    fs.symlinkSync(path.join(outside, "secret"), path.join(root, "soft.txt"));
    fs.linkSync(path.join(outside, "secret"), path.join(root, "hard.txt"));
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    fs.writeFileSync(path.join(root, "big.txt"), Buffer.alloc(2048, 97));
    const tree = await SafeTree.open(root, { maxFileBytes: 1024 });
    await expect(tree.readFile(path.join(root, "soft.txt"))).rejects.toThrow(`soft.txt: ${LINK_REFUSED}`);
    await expect(tree.readFile(path.join(root, "hard.txt"))).rejects.toThrow(`hard.txt: ${HARDLINK_REFUSED}`);
    await expect(tree.readFile(path.join(root, "pipe"))).rejects.toThrow(`pipe: ${SPECIAL_REFUSED}`);
    await expect(tree.readFile(path.join(root, "big.txt"))).rejects.toThrow("big.txt: is 2048 bytes, over the limit of 1024 bytes");
    // nothing left open: every refusal closed its descriptor
    const open = fs.readdirSync("/proc/self/fd").map((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return "";
      }
    });
    expect(open.filter((target) => target.startsWith(root) || target.startsWith(outside))).toEqual([]);
  });

  it("reads a file whose name ends like the kernel's mark for a deleted file", async () => {
    const root = tempDir();
    fs.writeFileSync(path.join(root, "notes (deleted)"), "still here");
    const tree = await SafeTree.open(root);
    expect((await tree.readFile(path.join(root, "notes (deleted)")))?.toString()).toBe("still here");
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LINK_REFUSED, SafeTree, UnsafeEntryError } from "./safe-tree";

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
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { Project } from "ts-morph";
import { fixFetchTimeouts } from "../src/fix/s13-fetch-timeout.js";

test("S-13 fix adds AbortSignal.timeout to fetch without a signal", () => {
  const p = new Project({ useInMemoryFileSystem: true });
  const sf = p.createSourceFile("/s/a.ts",
    `export async function f(u: string) { await fetch(u); await fetch(u, { method: "POST" }); await fetch(u, { signal: AbortSignal.timeout(5) }); }\n`);
  const edits = fixFetchTimeouts(sf);
  assert.equal(edits.length, 2);
  assert.equal(sf.getFullText().match(/AbortSignal\.timeout\(/g)?.length, 3);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { Project } from "ts-morph";
import { fixOpenSchemas } from "../src/fix/c4-open-schema.js";

const RED = `import { z } from "zod";
export const tools = [
  { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  { name: "add", inputSchema: z.object({ a: z.number() }) },
];
`;

test("C-4 fix closes JSON and zod input schemas", () => {
  const p = new Project({ useInMemoryFileSystem: true });
  const sf = p.createSourceFile("/s/server.ts", RED);
  const edits = fixOpenSchemas(sf);
  assert.equal(edits.length, 2);
  assert.match(sf.getFullText(), /additionalProperties: false/);
  assert.match(sf.getFullText(), /z\.object\(\{ a: z\.number\(\) \}\)\.strict\(\)/);
});

test("C-4 fix is idempotent on a closed schema (green stays untouched)", () => {
  const p = new Project({ useInMemoryFileSystem: true });
  const sf = p.createSourceFile("/s/server.ts",
    `export const t = { inputSchema: { type: "object", properties: {}, additionalProperties: false } };\n`);
  assert.equal(fixOpenSchemas(sf).length, 0);
});

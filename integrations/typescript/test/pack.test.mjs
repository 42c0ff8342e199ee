// `npm pack` builds the package: ESM entry and types, no sources, tests or runtime dependency.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const pkg = new URL("..", import.meta.url);

test("npm pack ships the built ESM client with its types, and nothing it does not need", () => {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: pkg,
    encoding: "utf8",
  });
  const [packed] = JSON.parse(out);
  const files = packed.files.map((f) => f.path).sort();
  for (const file of ["dist/index.js", "dist/index.d.ts", "dist/schema.d.ts", "README.md"]) {
    assert.ok(files.includes(file), `${file} is not in the package: ${files}`);
  }
  assert.deepEqual(
    files.filter((f) => !f.startsWith("dist/") && !["README.md", "package.json"].includes(f)),
    [],
  );
  const manifest = JSON.parse(readFileSync(new URL("package.json", pkg), "utf8"));
  assert.equal(manifest.name, "@memhub/client");
  assert.equal(manifest.type, "module");
  assert.equal(manifest.dependencies, undefined, "the client must have no runtime dependency");
});

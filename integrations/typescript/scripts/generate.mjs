// Generates src/schema.ts (every request and result type) from the REST service's
// OpenAPI document, written to openapi.json beside it.
//
//   npm run generate          regenerate both (after a change to the REST schemas)
//   npm run check:schema      fail when the committed files differ from what the
//                             service's code generates now (CI runs this)
//
// The document comes from the FastAPI app itself (scripts/openapi.py; no server runs),
// with the workspace's Python: MEMHUB_PYTHON, or ../../.venv/bin/python.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const repo = resolve(pkg, "../..");
const COMMAND = "npm run generate (in integrations/typescript)";

function python() {
  if (process.env.MEMHUB_PYTHON) return process.env.MEMHUB_PYTHON;
  const venv = join(repo, ".venv", "bin", "python");
  if (!existsSync(venv)) {
    throw new Error(`no ${venv}: run "make sync" at the repository root first`);
  }
  return venv;
}

const document = execFileSync(python(), [join(here, "openapi.py")], {
  encoding: "utf8",
  maxBuffer: 64 << 20,
});
/**
 * The document with every property of a result required. FastAPI answers every field of a
 * response model (defaults included), but the schema lists a field with a default as
 * optional, which would make `result.decisions` possibly `undefined` in TypeScript.
 * Requests keep their optional fields (`recall({ query })` needs no `limit`); a schema
 * used by both, and the error body (which leaves out an empty `details`), are left alone.
 */
function resultsRequired(doc) {
  const schemas = doc.components?.schemas ?? {};
  const reach = (node, into) => {
    if (Array.isArray(node)) return node.forEach((item) => reach(item, into));
    if (!node || typeof node !== "object") return;
    const ref = node.$ref?.match(/^#\/components\/schemas\/(.+)$/)?.[1];
    if (ref && !into.has(ref)) {
      into.add(ref);
      reach(schemas[ref], into);
    }
    for (const value of Object.values(node)) reach(value, into);
  };
  const inputs = new Set();
  const outputs = new Set();
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      reach([op.parameters, op.requestBody], inputs);
      reach(op.responses?.["200"], outputs);
    }
  }
  for (const name of outputs) {
    const schema = schemas[name];
    if (inputs.has(name) || name.startsWith("Error") || !schema.properties) continue;
    schema.required = Object.keys(schema.properties);
  }
  return doc;
}

const header =
  "// Generated from the memhub REST service's OpenAPI document by scripts/generate.mjs.\n" +
  `// Do not edit: run \`${COMMAND}\`.\n\n`;
const ast = await openapiTS(resultsRequired(JSON.parse(document)), {
  alphabetize: true,
  defaultNonNullable: false,
});
const types = header + astToString(ast);

const outputs = [
  [join(pkg, "openapi.json"), document],
  [join(pkg, "src", "schema.ts"), types],
];
if (process.argv.includes("--check")) {
  const stale = outputs.filter(
    ([path, text]) => !existsSync(path) || readFileSync(path, "utf8") !== text,
  );
  if (stale.length) {
    const names = stale.map(([path]) => path.slice(pkg.length + 1)).join(", ");
    console.error(
      `The TypeScript client's types have drifted from the REST service's schema (${names}).\n` +
        `Regenerate them with: ${COMMAND}, and commit the result.`,
    );
    process.exit(1);
  }
  console.log("src/schema.ts and openapi.json match the REST service's schema");
} else {
  for (const [path, text] of outputs) writeFileSync(path, text);
  console.log("wrote openapi.json and src/schema.ts");
}

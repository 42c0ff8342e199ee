// A real `memhub serve-api` for the tests: a temp storage dir, a free port on 127.0.0.1,
// and one API key per tenant, made with `memhub keys create` before the service starts.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

function memhubCommand() {
  if (process.env.MEMHUB_BIN) return process.env.MEMHUB_BIN;
  const venv = join(repo, ".venv", "bin", "memhub");
  if (!existsSync(venv)) throw new Error(`no ${venv}: run "make sync" at the repository root`);
  return venv;
}

function freePort() {
  return new Promise((ok, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => ok(port));
    });
  });
}

/**
 * Starts the service; answers `{ url, keys, stop }` where `keys[tenant]` is that tenant's key.
 */
export async function startService(tenants) {
  const folder = mkdtempSync(join(tmpdir(), "memhub-ts-"));
  const storage = join(folder, "data");
  const config = join(folder, "config.yaml");
  writeFileSync(config, ""); // the user's ~/.memhub/config.yaml must not change the test
  const env = { ...process.env, MEMHUB_CONFIG: config, OMP_NUM_THREADS: "2" };
  const memhub = memhubCommand();
  const keys = {};
  for (const tenant of tenants) {
    const out = execFileSync(
      memhub,
      ["keys", "create", "--tenant", tenant, "--storage-dir", storage, "--json"],
      { env, encoding: "utf8" },
    );
    keys[tenant] = JSON.parse(out).key;
  }
  const port = await freePort();
  const child = spawn(
    memhub,
    ["serve-api", "--storage-dir", storage, "--host", "127.0.0.1", "--port", String(port)],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout.on("data", (chunk) => (log += chunk));
  child.stderr.on("data", (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`memhub serve-api exited:\n${log}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`memhub serve-api did not answer within 120 s:\n${log}`);
    }
    await new Promise((ok) => setTimeout(ok, 200));
  }
  async function stop() {
    if (child.exitCode === null) {
      const exited = new Promise((ok) => child.once("exit", ok));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(folder, { recursive: true, force: true });
  }
  return { url, keys, stop, log: () => log };
}

/** Runs a compiled example against the service; answers its output as `{ label: value }`. */
export function runExample(name, url, key) {
  const script = join(repo, "integrations", "typescript", "examples", "dist", `${name}.js`);
  const out = execFileSync(process.execPath, [script], {
    env: { ...process.env, MEMHUB_URL: url, MEMHUB_API_KEY: key },
    encoding: "utf8",
    timeout: 120_000,
  });
  const lines = out.trimEnd().split("\n");
  const shown = {};
  for (const line of lines) {
    const space = line.indexOf(" ");
    if (space <= 0) continue;
    try {
      shown[line.slice(0, space)] = JSON.parse(line.slice(space + 1));
    } catch {
      // a line the example prints as the guide writes it, not a labelled value
    }
  }
  return { lines, shown };
}

/**
 * The corpus's perfect reader (`../shared/tools/oracle_llm.py`, see the
 * corpus README) as a process on a free loopback port: an OpenAI-compatible
 * server that answers the labelled values present in the text it is sent.
 * Its log says, per model call, which fields were asked and which it could
 * answer from what it was sent.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePorts } from "@winnow/scripts/ports";

export interface OracleCall {
  /** The case the oracle recognised from the fields asked and the text. */
  case: string;
  prompt_chars: number;
  fields_asked: string[];
  /** Fields whose labelled value was present in the text sent. */
  fields_answered: string[];
}

export interface Oracle {
  /** Ends with /v1, as LLM_BASE_URL expects. */
  baseUrl: string;
  /** Every model call so far. */
  calls(): Promise<OracleCall[]>;
  stop(): Promise<void>;
}

export async function startOracle(script: string, casesFile: string): Promise<Oracle> {
  const [port] = await freePorts(1);
  const dir = await mkdtemp(path.join(tmpdir(), "winnow-oracle-"));
  const log = path.join(dir, "calls.jsonl");
  const child = spawn("python3", [script, casesFile, String(port), log], { stdio: ["ignore", "ignore", "inherit"] });
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  // Reading every case's page takes the oracle tens of seconds on a loaded machine before it listens.
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the oracle (${script}) exited with code ${child.exitCode}`);
    const up = await fetch(`${baseUrl}/models`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`the oracle did not answer on ${baseUrl}`);
    }
    await sleep(100);
  }
  return {
    baseUrl,
    async calls() {
      const text = await readFile(log, "utf8").catch(() => "");
      return text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as OracleCall);
    },
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

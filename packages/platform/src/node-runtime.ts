/** The Node.js release line Winnow supports (LTS); 20.19+ still runs where a machine has nothing newer. */
const SUPPORTED_NODE_MAJOR = 22;

/** What an operator on an older Node.js should do, or undefined on a supported one. */
export function unsupportedNodeWarning(version = process.versions.node): string | undefined {
  if (Number(version.split(".")[0]) >= SUPPORTED_NODE_MAJOR) return undefined;
  return (
    `Node.js ${version} is past its end of life: Winnow supports Node.js ${SUPPORTED_NODE_MAJOR} LTS. ` +
    `Install it (nvm install ${SUPPORTED_NODE_MAJOR}, or nodejs ${SUPPORTED_NODE_MAJOR} from your system's packages) and start again.`
  );
}

/**
 * Says unsupportedNodeWarning once per start: from the process the operator
 * started (npm start, or a service run alone), not again from each service a
 * supervisor (scripts' stack.ts, WINNOW_SUPERVISOR=ipc) started on the same Node.js.
 */
export function warnOnUnsupportedNode(say: (warning: string) => void): void {
  if (process.env.WINNOW_SUPERVISOR === "ipc") return;
  const warning = unsupportedNodeWarning();
  if (warning) say(warning);
}

/**
 * The `mcp-doctor` process the user started. The command (src/cli.ts) may run the CLI in a child with a heap
 * ceiling; the child learns its launcher's pid from MCP_DOCTOR_LAUNCHER_PID (dropped from the environment here, so
 * nothing the CLI starts inherits it). A probe run's marker begins with this pid (src/probe/contain.ts): the
 * processes of a run are named after the process the user sees, whichever of the two runs the probe.
 */
const raw = Number(process.env.MCP_DOCTOR_LAUNCHER_PID);
delete process.env.MCP_DOCTOR_LAUNCHER_PID;

/** The launcher's pid when this process is the CLI it started (and it is still our parent), else undefined. */
export const LAUNCHER_PID: number | undefined = Number.isInteger(raw) && raw > 0 && raw === process.ppid ? raw : undefined;

/** The pid that names this mcp-doctor run: the launcher's when there is one, else ours. */
export const OWNER_PID: number = LAUNCHER_PID ?? process.pid;

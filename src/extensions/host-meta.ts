/**
 * The names by which mcp-doctor's extension host (host.ts) identifies itself and reports its hook runs. Kept apart
 * from host.ts so that the detectors that read them (host-session.ts) do not load the server SDK with them.
 */
export const HOST_NAME = 'mcp-doctor-extension-host';
export const HOST_TOOL = 'host_echo';
export const HOST_META = 'dev.mcp-doctor/host';

/** The MCP clients whose configurations `scan` reads (a module of its own: the faces list them without the parsers). */
export const CLIENTS = ['claude-code', 'claude-desktop', 'cursor', 'vscode', 'windsurf', 'codex'] as const;
export type ClientId = (typeof CLIENTS)[number];

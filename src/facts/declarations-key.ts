/** The `_meta` key under which a tool declares its authority, verb, search and context budget (C-8..C-13). In a
 * module of its own: mcp-doctor's server declares its tools with it without loading the source reader. */
export const DECLARATIONS_KEY = 'dev.mcp-doctor/declarations';

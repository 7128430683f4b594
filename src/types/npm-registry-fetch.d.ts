/** The part of npm-registry-fetch (no published types) that mcp-doctor uses. */
declare module 'npm-registry-fetch' {
  interface Options {
    registry?: string;
    timeout?: number;
    retry?: { retries?: number };
  }
  interface Fetch {
    json(path: string, opts?: Options): Promise<unknown>;
  }
  const fetch: Fetch;
  export default fetch;
}

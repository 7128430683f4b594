// A small component catalogue as an MCP server (the organisation's registry of components), built with the
// TypeScript SDK v2: one tool, search_components, that returns the entries whose name or keywords match the
// query, as structured content and as JSON text. Its entries come from the JSON file given as first argument;
// `--tool NAME` serves the search under another name.
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

const [file, flag, toolName] = process.argv.slice(2);
const entries = JSON.parse(readFileSync(file, 'utf8'));
const tool = flag === '--tool' && toolName ? toolName : 'search_components';

function buildServer() {
  const server = new McpServer({ name: 'component-catalogue', version: '1.0.0' });
  server.registerTool(
    tool,
    { description: 'Search the component catalogue by name or keyword.', inputSchema: z.object({ query: z.string() }) },
    async ({ query }) => {
      const q = query.toLowerCase();
      const results = entries.filter((e) => String(e.name).toLowerCase().includes(q) || (e.keywords ?? []).some((k) => String(k).toLowerCase() === q));
      return { content: [{ type: 'text', text: JSON.stringify({ results }) }], structuredContent: { results } };
    },
  );
  return server;
}

const handle = serveStdio(buildServer, { onerror: (e) => console.error(e) });
process.on('SIGTERM', () => void handle.close());

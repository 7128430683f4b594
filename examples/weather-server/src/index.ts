#!/usr/bin/env node
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';
import { t, tables } from './i18n.js';
import { RateLimiter } from './rate-limit.js';

const FORECASTS: Record<string, string> = { paris: 'sunny', london: 'rain', tokyo: 'cloudy' };
// Ten calls at once, then two a second.
const limiter = new RateLimiter(10, 2);
const locale = process.env.WEATHER_LOCALE && tables[process.env.WEATHER_LOCALE] ? process.env.WEATHER_LOCALE : 'en';

const build = () => {
  const server = new McpServer({ name: 'weather-mcp', version: '1.0.0' });
  server.registerTool(
    'get_forecast',
    {
      title: t(locale, 'tool.title'),
      description: t(locale, 'tool.description'),
      inputSchema: z.object({ city: z.string().min(1).max(80) }),
      outputSchema: z.object({ city: z.string(), forecast: z.string() }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      // What the tool declares about itself (rules C-8, C-9, C-13 of the standard).
      _meta: { 'dev.mcp-doctor/declarations': { authority: { read: 'public', write: 'admin' }, verb: 'get', targets: ['forecasts'], contextTokens: 150 } },
    },
    async ({ city }) => {
      if (!limiter.take()) return { content: [{ type: 'text', text: t(locale, 'error.rateLimited') }], isError: true };
      const forecast = FORECASTS[city.toLowerCase()];
      if (!forecast) return { content: [{ type: 'text', text: t(locale, 'error.unknownCity') }], isError: true };
      const out = { city, forecast };
      return { content: [{ type: 'text', text: `${city}: ${forecast}` }], structuredContent: out };
    },
  );
  return server;
};

serveStdio(build, { onerror: (e) => console.error(e) });

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { packageRoot } from '../../../engine/paths.js';
import { loadPythonParser } from '../../../facts/python-source.js';
import { judgeFolder } from '../../../../test/support/detector-tester.js';
import { registry } from '../../index.js';

/**
 * not-applicable needs evidence (tool-absence.ts): every static part that reads the tools registered in the
 * source says the same thing when it finds none, on real package shapes.
 */

const fx = (folder: string, state: string, name: string) => join(packageRoot(), 'src', 'detectors', folder, 'fixtures', state, name);
const RULES = ['C-4', 'C-8', 'C-9', 'C-12', 'C-13', 'C-15', 'S-11', 'S-24'];

function staticPart(rule: string, dir: string) {
  const { result } = judgeFolder(rule, registry.filter((d) => d.ruleId === rule && d.genre === 'static'), dir);
  const p = result.parts.find((x) => x.genre === 'static' && x.reason?.code !== 'no-python-source');
  return [p?.state, p?.reason?.code, p?.reason?.data];
}

describe('no tool found in the source: not-applicable only on evidence', () => {
  before(async () => {
    await loadPythonParser();
  });
  for (const rule of RULES) {
    it(`${rule}: a launcher over a dependency is could-not-judge, not not-applicable`, () => {
      // The dependency that would register the tools is not installed: named when the part reads the files not
      // read first (file-not-read), otherwise the plain absence of registrations (never not-applicable).
      const [state, code, data] = staticPart(rule, fx('S-24-rate-limiting', 'could-not-judge', 'launcher-over-dependency'));
      assert.equal(state, 'could-not-judge');
      if (code === 'file-not-read') assert.deepEqual(data, { file: 'node_modules/@acme/notes-mcp-core/', cause: 'dependency-not-installed' });
      else assert.deepEqual([code, data], ['no-tools-in-source', { unread: 0 }]);
    });
    it(`${rule}: tools served in the same run that the source reading missed are counted`, () => {
      assert.deepEqual(staticPart(rule, fx('C-4-typed-schemas', 'present', 'registered-through-a-table')), ['could-not-judge', 'served-tools-not-in-source', { served: 2 }]);
    });
    it(`${rule}: a low-level server that declares tools it loads at run time is could-not-judge`, () => {
      const got = staticPart(rule, fx('S-24-rate-limiting', 'could-not-judge', 'lowlevel-tools-from-plugins')).slice(0, 2);
      // S-11 reads the tools/call handler itself: its unknown-name branch answers with a result, a red whatever tools load.
      if (rule === 'S-11') assert.deepEqual(got, ['non-conforming', undefined]);
      else assert.deepEqual(got, ['could-not-judge', 'tools-declared-not-found']);
    });
    it(`${rule}: FastMCP tools added in a loop over a list generated from a shipped OpenAPI document are could-not-judge, naming the call`, () => {
      // On main this was not-applicable 'no-tools-registered': the `server.addTool(tool)` call was passed over.
      assert.deepEqual(staticPart(rule, fx('C-2-naming', 'could-not-judge', 'tools-generated-from-spec')), [
        'could-not-judge',
        'tool-registrations-not-read',
        { count: 1, expression: 'server.addTool(tool)', file: 'dist/index.js', line: 24 },
      ]);
    });
    it(`${rule}: a tools/list handler over tools loaded from documents named at run time is could-not-judge, naming the handler`, () => {
      // On main this was not-applicable 'no-tools-registered' (the capabilities are a variable, the list a Map's values).
      const [state, code, data] = staticPart(rule, fx('C-2-naming', 'could-not-judge', 'openapi-tools-from-runtime-spec'));
      // S-11 reads the tools/call dispatcher itself: the text-only result it returns is red whatever the tools are.
      if (rule === 'S-11') return assert.equal(state, 'non-conforming');
      assert.deepEqual([state, code], ['could-not-judge', 'tool-registrations-not-read']);
      const d = data as { file: string; line: number; count: number };
      assert.deepEqual([d.file, d.line, d.count], ['build/server.js', 13, 1]);
    });
    it(`${rule}: tools registered by a package helper from actions fetched at run time are could-not-judge, naming the call`, () => {
      // On main this was not-applicable 'no-tools-registered': `server.tool(name, description, schema, handler)`, all
      // four the parameters of a local arrow called in a loop over an API's answer, was passed over.
      assert.deepEqual(staticPart(rule, fx('C-4-typed-schemas', 'could-not-judge', 'tools-from-catalog-api')), [
        'could-not-judge',
        'tool-registrations-not-read',
        { count: 1, expression: 'server.tool(name, description, schema, handler)', file: 'dist/lib/registerCatalogTools.js', line: 8 },
      ]);
    });
    it(`${rule}: tools registered through a local wrapper are read at its calls (not not-applicable)`, () => {
      const [state, code] = staticPart(rule, fx('C-2-naming', 'non-conforming', 'wrapper-const-addtool'));
      assert.ok(state, 'judged');
      assert.ok(!['no-tools-registered', 'no-tools-in-source', 'tool-registrations-not-read'].includes(String(code)), `${state} ${code}`);
    });
    it(`${rule}: a gateway relaying its client's messages to a child server is not-applicable, naming the relay`, () => {
      // Before support/source/relay.ts: not-applicable 'no-tools-registered' (the gateway builds a Server with no tools).
      assert.deepEqual(staticPart(rule, fx('C-4-typed-schemas', 'not-applicable', 'stdio-to-sse-gateway')), ['not-applicable', 'relays-upstream-tools', { file: 'dist/gateways/stdioToSse.js', line: 18 }]);
    });
    it(`${rule}: a proxy answering tools/list with its upstream client's list is not-applicable, naming the handler`, () => {
      // Before: could-not-judge 'tool-registrations-not-read' (the list handler's tools were not followed).
      assert.deepEqual(staticPart(rule, fx('C-4-typed-schemas', 'not-applicable', 'remote-proxy-forwarding-lists')), ['not-applicable', 'relays-upstream-tools', { file: 'dist/proxyServer.js', line: 14 }]);
    });
    it(`${rule}: a transport handler that only counts messages is no relay`, () => {
      const [state, code] = staticPart(rule, fx('C-4-typed-schemas', 'could-not-judge', 'transport-tap-no-forward'));
      assert.deepEqual([state, code], ['could-not-judge', 'no-tools-in-source']);
    });
    it(`${rule}: a server built in the source with prompts only is not-applicable`, () => {
      assert.deepEqual(staticPart(rule, fx('C-4-typed-schemas', 'not-applicable', 'prompts-only-source')).slice(0, 2), ['not-applicable', 'no-tools-registered']);
    });
  }
});

describe('relays: the parts that read tool texts, commands and outputs agree with the tool parts', () => {
  for (const rule of ['C-16', 'X-1', 'X-2', 'X-4', 'X-5', 'S-12']) {
    it(`${rule}: a gateway relaying to a child server is not-applicable, naming the relay`, () => {
      assert.deepEqual(staticPart(rule, fx('C-4-typed-schemas', 'not-applicable', 'stdio-to-sse-gateway')), ['not-applicable', 'relays-upstream-tools', { file: 'dist/gateways/stdioToSse.js', line: 18 }]);
    });
    it(`${rule}: no tool and no relay is could-not-judge with its reason's data (never a raw message template)`, () => {
      const [state, code, data] = staticPart(rule, fx('C-4-typed-schemas', 'could-not-judge', 'transport-tap-no-forward'));
      assert.equal(state, 'could-not-judge');
      if (code === 'no-tools-in-source') assert.deepEqual(data, { unread: 0 });
      else assert.ok(['no-texts-in-source', 'no-lists-in-source'].includes(String(code)), String(code));
    });
  }
});

describe('relays read in the forwarding shapes of published proxies and gateways', () => {
  const cases: [string, string, { file: string; line: number }][] = [
    // On main: could-not-judge 'no-tools-in-source' (the transports are named `local`/`remote`, wired by a helper in another file).
    ['remote-proxy-bridge-helper', 'a stdio-to-remote proxy wiring two transports through a helper', { file: 'dist/lib/bridge.js', line: 13 }],
    // On main: could-not-judge 'tools-declared-not-found' (a fallback handler rebuilding each request for the upstream).
    ['auth-gateway-fallback-bundle', 'a bundled auth gateway whose fallback handler forwards every request', { file: 'dist/index.js', line: 50 }],
    // On main: could-not-judge 'tools-declared-not-found' (one handler registered over a list of schemas, in a class).
    ['hook-passthrough-gateway', 'a passthrough gateway forwarding each request of a schema list after its hooks', { file: 'dist/index.js', line: 25 }],
  ];
  for (const rule of [...RULES, 'C-10', 'C-16', 'X-1', 'X-4', 'X-5', 'S-12']) {
    for (const [name, what, at] of cases) {
      it(`${rule}: ${what} is not-applicable, naming the forwarding site`, () => {
        assert.deepEqual(staticPart(rule, fx('C-4-typed-schemas', 'not-applicable', name)), ['not-applicable', 'relays-upstream-tools', at]);
      });
    }
    it(`${rule}: a gateway that forwards and adds a tool of its own is judged on that tool`, () => {
      const [state, code] = staticPart(rule, fx('C-4-typed-schemas', 'present', 'gateway-forwards-and-adds-a-tool'));
      assert.ok(state !== 'could-not-judge' && code !== 'relays-upstream-tools', `${state} ${code}`);
    });
    it(`${rule}: forwarding written as stdin lines posted with fetch is not read: could-not-judge`, () => {
      assert.equal(staticPart(rule, fx('C-4-typed-schemas', 'could-not-judge', 'stdio-lines-to-fetch'))[0], 'could-not-judge');
    });
    // On main both were not-applicable 'relays-upstream-tools': an object literal `{ method: request.method }` passed
    // to a logger's call, or a fallback handler that logs the method and throws, read as a forwarded request.
    it(`${rule}: a tools/call handler logging the request's method is no relay (judged as without the log line)`, () => {
      const [, code] = staticPart(rule, fx('C-4-typed-schemas', 'could-not-judge', 'json-tools-call-handler-logs-method'));
      assert.notEqual(code, 'relays-upstream-tools');
    });
    it(`${rule}: a fallback handler that logs the method and throws forwards nothing`, () => {
      const [, code] = staticPart(rule, fx('C-4-typed-schemas', 'could-not-judge', 'fallback-handler-logs-and-throws'));
      assert.notEqual(code, 'relays-upstream-tools');
    });
    it(`${rule}: a dispatcher posting the tool's arguments to a REST API is no relay`, () => {
      const [, code] = staticPart(rule, fx('C-4-typed-schemas', 'could-not-judge', 'rest-dispatcher-no-relay'));
      assert.notEqual(code, 'relays-upstream-tools');
    });
  }
});

it('S-12: a proxy forwarding its list requests upstream is not-applicable (its pages are the upstream server\'s)', () => {
  // Before: could-not-judge 'list-source-unknown' (the list comes from `client.listTools(request.params)`).
  assert.deepEqual(staticPart('S-12', fx('C-4-typed-schemas', 'not-applicable', 'remote-proxy-forwarding-lists')), ['not-applicable', 'relays-upstream-tools', { file: 'dist/proxyServer.js', line: 14 }]);
});

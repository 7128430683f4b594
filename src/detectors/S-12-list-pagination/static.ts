import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { hasPythonSource } from '../../facts/python-source.js';
import { serverModel } from '../../facts/server-model.js';
import { parsedSources } from '../../facts/ts-source.js';
import { fileNotReadData } from '../../facts/not-read.js';
import { listFacts, loopedRegistrations } from '../support/source/list-sources.js';
import { judgePythonPagination } from './python.js';
import { toolTemplates } from '../../facts/tool-templates.js';
import { relayOf } from '../support/source/relay.js';

/**
 * S-12 — protocol list methods paginate (static part, JavaScript/TypeScript). Reads where each protocol
 * list of the source comes from (list-sources.ts) and reports a list whose size depends on data returned
 * in one piece:
 *   - 'list-handler-ignores-cursor': a hand-written tools/list, prompts/list, resources/list or
 *     resources/templates/list handler returns items from a store, a folder or a call the source does not
 *     define (a database, an API) and never reads the request's cursor;
 *   - 'template-list-unpaginated': the `list` callback of a ResourceTemplate registered with McpServer
 *     returns such items: McpServer's resources/list returns every callback's resources whole;
 *   - 'registrations-from-data': McpServer registrations (tools, prompts, resources) made once per item of a loop
 *     over a list read at run time (an awaited API or database call, a store): the list they build grows with the
 *     data and McpServer returns it whole (a loop whose items cannot be followed is not judged).
 * A catalog written in code (registrations, literal arrays, constants nothing changes) needs no paging:
 * present. A tools/list built by mapping items through one tool template (facts/tool-templates) takes its
 * origin from those items: a catalog read at run time is data (the rule's "tools built from a remote catalog"); a
 * JSON/YAML document shipped in the package, or a table of class instances or literals written in code, is fixed
 * (its size is set when the package is published, it depends on no stored data).
 * A list whose origin cannot be followed, when nothing is red: could-not-judge
 * 'list-source-unknown' ('file-not-read' naming the dependency the tools come from when it could not be read). A relay of another server's messages with nothing of its own: not-applicable 'relays-upstream-tools'. No registration and no list handler: could-not-judge 'no-lists-in-source'. Python
 * source only: the Python reading (python.ts).
 */

export default defineDetector({
  ruleId: 'S-12',
  genre: 'static',
  needs: ['repo'],
  partial: true,
  messages: {
    'list-handler-ignores-cursor': ['method'],
    'template-list-unpaginated': ['template'],
    'registrations-from-data': ['method'],
  },
  judge({ inputs: { repo } }) {
    const model = serverModel(repo);
    if (model.files.length === 0) return hasPythonSource(repo) ? judgePythonPagination(repo) : couldNotJudge('no-source');
    const { sources } = listFacts(repo);
    const findings: Finding[] = [];
    let unknown = 0;
    const templates = toolTemplates(repo);
    for (const s of sources) {
      let items = s.items;
      // A tools/list built from one template: the items it maps say where the list comes from — a catalog read
      // at run time (the rule's "tools built from a remote catalog"), or a document shipped in the package or a
      // table of class instances or object literals written in code (fixed).
      if (items === 'unknown' && s.method === 'tools/list' && s.via === 'handler') {
        const mine = templates.filter((t) => t.handler.handler === s.fn);
        if (mine.length && mine.some((t) => t.items === 'remote')) items = 'data';
        else if (mine.length && mine.every((t) => t.items === 'classes' || t.items === 'objects' || t.items === 'document')) items = 'fixed';
      }
      if (items === 'unknown') unknown++;
      if (items !== 'data') continue;
      const location = { file: s.file, line: s.line };
      if (s.via === 'template-list') findings.push({ messageId: 'template-list-unpaginated', data: { template: s.template ?? '' }, location });
      else if (!s.readsCursor) findings.push({ messageId: 'list-handler-ignores-cursor', data: { method: s.method }, location });
    }
    // Registrations made per item of a list read at run time (McpServer returns the list they build whole): once per
    // method and loop. A loop over items the reading cannot follow (a table imported whole, a class registry) is left
    // as before: most are catalogs written in code, which need no paging.
    const loops = new Set<string>();
    for (const r of loopedRegistrations(repo)) {
      if (r.items !== 'data' || sources.some((s) => s.method === r.method && s.via === 'handler')) continue;
      const key = `${r.method}:${r.file}:${r.line}`;
      if (loops.has(key)) continue;
      loops.add(key);
      findings.push({ messageId: 'registrations-from-data', data: { method: r.method }, location: { file: r.file, line: r.line } });
    }
    if (findings.length) return { state: 'non-conforming', findings };
    // A relay with nothing of its own serves its upstream server's lists, pages included (support/source/relay).
    const relay = model.tools.length + model.prompts.length + model.resources.length === 0 ? relayOf(repo) : undefined;
    if (relay && (unknown || sources.length === 0)) return notApplicable('relays-upstream-tools', { file: relay.file, line: relay.line });
    if (unknown) {
      // The list comes from a dependency that could not be read (facts/published): named.
      const dependency = parsedSources(repo).unread.find((u) => u.file.startsWith('node_modules/') && u.file.endsWith('/'));
      return dependency ? couldNotJudge('file-not-read', fileNotReadData(dependency)) : couldNotJudge('list-source-unknown', { count: unknown });
    }
    if (sources.length === 0 && model.tools.length + model.prompts.length + model.resources.length === 0) return couldNotJudge('no-lists-in-source');
    return present();
  },
});

import { couldNotJudge, notApplicable } from '../../engine/detector.js';
import type { Verdict } from '../../engine/types.js';
import { callParts, qualName } from '../../facts/python-model.js';
import { allNodes, lineOf } from '../../facts/python-source.js';
import type { RepoFacts } from '../../facts/repo.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';

/**
 * S-26, static part on a Python server (called by static.ts when the source is Python). The official `mcp`
 * SDK declares listChanged for prompts and resources only when the server is given
 * `NotificationOptions(prompts_changed=True)` / `(resources_changed=True)` (FastMCP never does; the
 * low-level Server through create_initialization_options / get_capabilities), or when a capabilities
 * object written in the source says `listChanged=True`. None of these, every file read, and the server
 * built with the official SDK: not-applicable 'list-changed-not-declared'. The standalone `fastmcp`
 * package manages these notifications itself: could-not-judge 'python-fastmcp-list-changed'. Declared:
 * which writes change the lists is not read in Python yet: could-not-judge 'python-list-changes-not-read'.
 */
export function judgePythonListChanged(repo: RepoFacts): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  let standalone = false;
  for (const file of model.sources.files.values()) {
    if ([...file.imports.values()].some((d) => d === 'fastmcp' || d.startsWith('fastmcp.'))) standalone = true;
    for (const c of allNodes(file)) {
      if (c.type !== 'call') continue;
      const p = callParts(c);
      const q = p ? (qualName(p.fn, file) ?? '') : '';
      if (!p) continue;
      const on = (k: string) => {
        const v = p.kw.get(k);
        return !!v && v.type !== 'false' && v.type !== 'none';
      };
      if (/(?:^|\.)NotificationOptions$/.test(q) && (on('prompts_changed') || on('resources_changed') || p.args.length > 0 || p.splats.length > 0)) {
        return couldNotJudge('python-list-changes-not-read', { file: file.rel, line: lineOf(c) });
      }
      if (/(?:^|\.)(?:PromptsCapability|ResourcesCapability)$/.test(q) && (on('listChanged') || p.splats.length > 0)) {
        return couldNotJudge('python-list-changes-not-read', { file: file.rel, line: lineOf(c) });
      }
    }
  }
  if (standalone) return couldNotJudge('python-fastmcp-list-changed');
  return unreadableVerdict(model, { tools: false }) ?? notApplicable('list-changed-not-declared');
}

import { couldNotJudge, defineDetector, notApplicable, present } from '../../engine/detector.js';
import type { Finding } from '../../engine/types.js';
import { callableByApp, confirmationCause, needsConfirmation } from '../../probe/apps-discover.js';
import { renderedApps, servedViewHtml, viewCalls, viewCodeMayCallTools } from '../support/apps/apps-support.js';
import { servedViewCode } from '../support/apps/embedded-view.js';
import { viewCallVerdicts } from './static.js';

/**
 * A-7 — consent before a destructive call (dynamic). The host harness clicks each control of the View once,
 * then the controls a click revealed (a confirmation step), and records which tools/call requests the View sent
 * after each click. A call of a tool that needs a confirmation — annotated destructive, or not idempotent, or
 * not annotated at all; never exempted on `destructiveHint: false` alone — is red when it followed a first
 * click directly, with no revealed confirmation control clicked and no dialog in between, or when the View
 * sent it without any click. When no click reached such a call, the served code of each distinct View is read as the
 * static half reads a View (static.ts viewCallVerdicts), with the served tools' annotations: a call of a tool that
 * needs a confirmation with no confirm() before it and no second click is red (call-in-view-code-without-confirmation),
 * every call judged and none red is present; a call the reading cannot judge (its tool's name comes from a result)
 * leaves the part could-not-judge. When the View can call no such tool, it does not apply. Nor does it when the Views call no server tool at
 * all, on evidence: no rendered View sent a tools/call, and either the code of every distinct View as served (the
 * host's raw resources/read answer; several tools may show one View, and Views past the harness's bound on renderings
 * are read) holds no tool call (then a bound that cut the recorded traffic does not matter), or the traffic is whole,
 * every App tool's View rendered, no View's code is known to call a tool and the
 * harness clicked every control of every View (no bound cut the clicks).
 */

export default defineDetector({
  ruleId: 'A-7',
  genre: 'dynamic',
  needs: ['session'],
  messages: {
    'call-without-confirmation': ['tool', 'called', 'control', 'cause'],
    'call-without-click': ['tool', 'called', 'cause'],
    'call-in-view-code-without-confirmation': ['tool', 'called', 'cause', 'line'],
  },
  judge({ inputs: { session } }) {
    const got = renderedApps(session);
    if ('state' in got) return got;
    const confirmable = [...got.tools.values()].filter((t) => callableByApp(t) && needsConfirmation(t));
    const findings: Finding[] = [];
    let reached = 0;
    // One finding per View, called tool and control (the harness repeats a control for the round-trip figures).
    const reported = new Set<string>();
    for (const v of got.rendered) {
      const calls = viewCalls(v);
      const byId = new Map(calls.map((c) => [c.id, c]));
      const clicked = new Set<string | number>();
      for (const click of v.clicks) {
        for (const id of click.calls) {
          clicked.add(id);
          const c = byId.get(id);
          if (!c) continue;
          const def = got.tools.get(c.name);
          if (!needsConfirmation(def)) continue;
          reached++;
          const key = `${v.tool}|${c.name}|${click.control}`;
          if (!click.revealedBy && !click.dialog && !reported.has(key) && reported.add(key)) findings.push({ messageId: 'call-without-confirmation', data: { tool: v.tool, called: c.name, control: click.control.slice(0, 80), cause: confirmationCause(def) } });
        }
      }
      for (const c of calls) {
        if (clicked.has(c.id) || !needsConfirmation(got.tools.get(c.name))) continue;
        reached++;
        if (reported.has(`${v.tool}|${c.name}|`)) continue;
        reported.add(`${v.tool}|${c.name}|`);
        findings.push({ messageId: 'call-without-click', data: { tool: v.tool, called: c.name, cause: confirmationCause(got.tools.get(c.name)) } });
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    if (reached) return present();
    if (!confirmable.length) return notApplicable('no-confirmable-tool');
    // No click reached a call that needs a confirmation (a call behind a canvas, a graph's node, a control the harness
    // does not click): the served code of each distinct View is read as the static half reads a View, with the
    // served tools' annotations. A call of such a tool with no confirm() before it and no second click is red.
    const uris = [...new Set(got.apps.map((a) => a.link.uri))];
    const read = uris.map((uri) => {
      const html = servedViewHtml(got.record, uri);
      const code = html === undefined ? undefined : servedViewCode(uri, html);
      return code && { uri, ...viewCallVerdicts(code, (name) => got.tools.get(name)) };
    });
    for (const r of read) {
      for (const red of r?.reds ?? []) {
        const tool = got.apps.find((a) => a.link.uri === r!.uri)!.name;
        const called = red.called;
        if (reported.has(`${tool}|${called}|code`) || !reported.add(`${tool}|${called}|code`)) continue;
        findings.push({ messageId: 'call-in-view-code-without-confirmation', data: { tool, called, cause: red.onHint ? 'destructive_hint' : red.cause!, line: red.line } });
      }
    }
    if (findings.length) return { state: 'non-conforming', findings };
    // The Views call no server tool at all, on evidence: the recorded bridge traffic (not cut) of the rendered Views holds
    // no tools/call, and either the served code of every distinct View holds no tool call, or every App tool's View
    // rendered, no View's code is known to call a tool and the harness clicked every control of every View (no bound
    // cut the clicks). The rule's condition — a View that can call a tool needing a confirmation — is then shown false.
    const everyView = got.apps.every((a) => got.rendered.some((v) => v.tool === a.name));
    const tools = got.rendered.map((v) => v.tool).join(', ');
    if (got.rendered.every((v) => viewCalls(v).length === 0)) {
      // The code is the View's whatever tool shows it: each distinct View's served code (rendered, or read past the
      // harness's bound on renderings) is read once.
      const code = uris.map((uri) => {
        const html = servedViewHtml(got.record, uri);
        return html === undefined ? undefined : viewCodeMayCallTools(html);
      });
      // Code that holds no tool call sends none, whatever the part of its traffic a bound cut (a render loop that
      // reports its size on every frame fills the record long before the clicks are done).
      if (code.every((c) => c === false)) return notApplicable('view-calls-no-tool', { tools: got.apps.map((a) => a.name).join(', '), evidence: 'code' });
      if (got.rendered.every((v) => !v.truncated)) {
        if (!everyView) return couldNotJudge('confirmable-call-not-seen', { tools: confirmable.map((t) => String(t.name)).sort().join(', ') });
        // The traffic alone stands as evidence only when it is whole and no View's code is known to hold a tool call: a
        // View whose code calls a tool may simply not have been given what it needs to call it (a tool input the
        // harness did not send).
        if (code.every((c) => c !== true) && got.rendered.every((v) => !v.clicksTruncated)) return notApplicable('view-calls-no-tool', { tools, evidence: 'traffic' });
      }
    }
    // Every View's code read, each of its calls judged and none red: what the View's code confirms stands.
    if (read.every((r) => r && !r.unjudged.size) && read.some((r) => r!.calls > 0)) return present();
    return couldNotJudge('confirmable-call-not-seen', { tools: confirmable.map((t) => String(t.name)).sort().join(', ') });
  },
});

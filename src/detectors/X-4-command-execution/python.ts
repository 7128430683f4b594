import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import { pythonFlows } from '../../facts/python-flow.js';
import { FLOW_PLACEHOLDERS, flowFindings, isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';

/**
 * command execution from tool arguments, Python part (static). Follows each tool's (prompt's,
 * resource template's) arguments inside its function to subprocess / os.system / os.popen / asyncio
 * subprocesses / os.exec* / eval / exec (see src/facts/python-flow.ts). Red when an argument reaches a
 * shell command (shell=True, os.system, a shell or interpreter given -c), chooses the program, or reaches
 * eval/exec, with no allowlist, constant comparison or strict anchored pattern in front of it. A list-form
 * call without a shell whose program is a literal is green.
 */
export default defineDetector({
  ruleId: 'X-4',
  genre: 'static',
  needs: ['repo'],
  partial: true,
  messages: {
    'python-command-shell': FLOW_PLACEHOLDERS,
    'python-command-program': FLOW_PLACEHOLDERS,
    'python-code-eval': FLOW_PLACEHOLDERS,
  },
  judge({ inputs: { repo } }) {
    const model = pythonModelOrVerdict(repo);
    if (isVerdict(model)) return model;
    const findings = flowFindings(pythonFlows(model, 'command'));
    if (findings.length) return { state: 'non-conforming', findings };
    const unread = unreadableVerdict(model);
    if (unread) return unread;
    if (model.handlers.length === 0) return notApplicable('no-python-tools');
    return present();
  },
});

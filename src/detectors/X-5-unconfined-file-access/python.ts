import { defineDetector, notApplicable, present } from '../../engine/detector.js';
import { pythonFlows } from '../../facts/python-flow.js';
import { FLOW_PLACEHOLDERS, flowFindings, isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../support/python/python-support.js';

/**
 * unconfined file access, Python part (static). Follows each tool's (prompt's, resource
 * template's) arguments inside its function to open / io.open / os.* / shutil.* / glob and Path methods
 * (see src/facts/python-flow.ts). Green only when the path is resolved (os.path.realpath, Path.resolve)
 * and then confined: startswith(root + os.sep), is_relative_to(root), root in p.parents, commonpath, or
 * relative_to(root), before the call. The message says what is missing: any check, a check on the raw
 * string, a prefix test without a separator, or a check made before symbolic links are resolved.
 */
export default defineDetector({
  ruleId: 'X-5',
  genre: 'static',
  needs: ['repo'],
  partial: true,
  messages: {
    'python-path-unconfined': FLOW_PLACEHOLDERS,
    'python-path-raw-check': FLOW_PLACEHOLDERS,
    'python-path-prefix-without-separator': FLOW_PLACEHOLDERS,
    'python-path-check-before-realpath': FLOW_PLACEHOLDERS,
  },
  judge({ inputs: { repo } }) {
    const model = pythonModelOrVerdict(repo);
    if (isVerdict(model)) return model;
    const findings = flowFindings(pythonFlows(model, 'file'));
    if (findings.length) return { state: 'non-conforming', findings };
    const unread = unreadableVerdict(model);
    if (unread) return unread;
    if (model.handlers.length === 0) return notApplicable('no-python-tools');
    return present();
  },
});

import { couldNotJudge, notApplicable } from '../../../engine/detector.js';
import type { Verdict } from '../../../engine/types.js';
import type { RepoFacts } from '../../../facts/repo.js';
import { isVerdict, pythonModelOrVerdict, unreadableVerdict } from '../python/python-support.js';

/**
 * The authorization rules on a Python server (S-8, S-9, S-17, S-20): their Python reading is not written
 * yet, but their condition can be shown false. Each rule names the words its subject cannot do without
 * (receiving a client's token — an outbound Authorization header built from the server's own key is not
 * one —, an OAuth proxy, an OAuth client, scopes). When no line of code of the Python
 * source (comments left out) holds one, and every file was read: not-applicable with the rule's own
 * reason. Otherwise could-not-judge 'python-auth-not-read', at the first such line.
 */
export const PY_AUTH_EVIDENCE = {
  /** S-8: the server receives a client's token. */
  token: /AccessToken|TokenVerifier|token_verifier|get_access_token|AuthSettings|auth_server_provider|BearerAuth|\bauth\s*=|headers(?:\.get\(\s*|\[\s*)["']authorization|jwt\.decode|request\.headers/i,
  /** S-9: an OAuth proxy in front of an upstream authorization server. */
  proxy: /client_id|OAuthAuthorizationServerProvider|ProxyOAuth|redirect_uri|\/authorize\b/i,
  /** S-17: the server acts as an OAuth client. */
  client: /authorization_code|grant_type|code_verifier|registration_endpoint|OAuthClientProvider|authlib|oauthlib|msal|oauth2client|google\.oauth2|authorization_url/i,
  /** S-20: OAuth scopes. */
  scopes: /\bscopes?\b|required_scopes/i,
} as const;

export function judgePythonAuthCondition(repo: RepoFacts, evidence: RegExp, absentReason: string): Verdict {
  const model = pythonModelOrVerdict(repo);
  if (isVerdict(model)) return model;
  for (const file of model.sources.files.values()) {
    const lines = file.text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const code = lines[i]!.replace(/#.*$/, '');
      if (evidence.test(code)) return couldNotJudge('python-auth-not-read', { file: file.rel, line: i + 1 });
    }
  }
  return unreadableVerdict(model, { tools: false }) ?? notApplicable(absentReason);
}

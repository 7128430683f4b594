/**
 * C-6 (dynamic) — the reviewed registry of what must not appear in an error sent to a client. Each
 * pattern is narrow on purpose: a finding is quoted to a human reviewer, so a shape that ordinary error
 * text also has does not belong here.
 */

export interface LeakPattern {
  /** Stable id, used as message data (`kind`) for secrets. */
  id: string;
  re: RegExp;
}

/** Stack frames of the runtimes MCP servers are written in. */
export const STACK_FRAMES: LeakPattern[] = [
  // V8 (Node, Deno, Bun): "    at fn (file:///srv/app/index.js:12:9)", "    at /srv/app/index.js:12:9", "at node:internal/…:1:2".
  { id: 'v8-frame', re: /^[ \t]*at (?:async )?(?:[^\n()]*? \()?(?:file:\/\/|node:|\/|[A-Za-z]:\\|<anonymous>)[^\n()]*:\d+:\d+\)?/m },
  // Python: the traceback header, or a frame line 'File "/x.py", line 3, in f'.
  { id: 'python-traceback', re: /Traceback \(most recent call last\):|^[ \t]*File "[^"\n]+", line \d+, in /m },
  // JVM: "at com.example.Foo.bar(Foo.java:12)".
  { id: 'jvm-frame', re: /^[ \t]*at [\w$]+(?:\.[\w$<>]+)+\([\w$]+\.(?:java|kt|scala):\d+\)/m },
];

/** Absolute filesystem paths (and file: URLs) under the usual roots of a machine's file tree. */
export const ABSOLUTE_PATHS: LeakPattern[] = [
  // A file: URL names a local file whatever its root.
  { id: 'file-url', re: /file:\/\/\/?[^\s"'`<>()[\]{},;]+/ },
  // POSIX paths below the roots that reveal a user, an install or a temp area. Not preceded by a word
  // character, a dot, a tilde or a slash, so URL paths and relative paths do not match.
  { id: 'posix-path', re: /(?<![\w.~/:-])\/(?:home|Users|usr|var|tmp|root|opt|srv|etc|private|mnt|Library)\/[^\s"'`<>()[\]{},;]+/ },
  // Windows drive paths: C:\Users\…
  { id: 'windows-path', re: /(?<![\w])[A-Za-z]:\\[^\s"'`<>()[\]{},;]*[^\s"'`<>()[\]{},;.]/ },
];

/** Token shapes of well-known secrets (prefix plus length; no entropy guessing). */
export const SECRETS: LeakPattern[] = [
  // AWS access key ids (long-term AKIA…, temporary ASIA…).
  { id: 'aws-access-key-id', re: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/ },
  // GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens, and fine-grained PATs.
  { id: 'github-token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/ },
  // Slack bot, user, app and workspace tokens.
  { id: 'slack-token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  // PEM private keys of any algorithm.
  { id: 'private-key', re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  // JSON Web Tokens: base64url header and payload that both start with '{"' (eyJ), then a signature.
  { id: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/ },
  // Stripe live secret and restricted keys.
  { id: 'stripe-live-key', re: /\b[sr]k_live_[A-Za-z0-9]{16,}\b/ },
  // Google API keys.
  { id: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  // OpenAI and Anthropic API keys (sk-…, sk-proj-…, sk-ant-…), long enough not to be a word.
  { id: 'llm-api-key', re: /\bsk-(?:ant-[a-z0-9]+-|proj-)?[A-Za-z0-9_-]{32,}/ },
];

/** A secret is quoted only by its first characters, so the report does not leak it again. */
export const maskSecret = (s: string): string => (s.startsWith('-----BEGIN') || s.length <= 12 ? s : `${s.slice(0, 8)}…`);

/**
 * X-2 — the reviewed registry of cross-server shadowing: sentences that steer how the model uses a tool
 * (named in the capture), rules laid down for every tool or other servers, and the well-known tool names
 * that lookalikes imitate. A reference to one of the server's own tools is not shadowing; the detector
 * drops those.
 */

/** A referenced tool: `backticked`, an identifier with a separator (send_email, fs.read), or a word followed by "tool". */
const REF = String.raw`(?:\x60(?<q>[^\x60\s]{2,64})\x60|(?<id>[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+)|(?<w>[A-Za-z][A-Za-z0-9-]{1,63})(?=\s+tool\b))`;
/** French: "l’outil X" names X whatever its shape. */
const REF_FR = String.raw`(?:l['’]outil\s+(?<o>[\p{L}\p{N}_.-]{2,64})|${REF})`;

const re = (source: string, flags = 'i') => new RegExp(source, flags);

export const TOOL_REFERENCES: { id: string; re: RegExp }[] = [
  // "whenever you use send_email", "before calling `read_file`", "each time you invoke the search tool".
  { id: 'when-you-use', re: re(String.raw`\b(?:when(?:ever)?|each\s+time|every\s+time|any\s+time|before|after)\s+(?:you\s+)?(?:use|call|invoke|run|using|calling|invoking|running)\s+(?:the\s+)?${REF}`) },
  // "when the send_email tool is used", "if `fetch` is called".
  { id: 'when-is-used', re: re(String.raw`\b(?:when(?:ever)?|each\s+time|every\s+time|if)\s+(?:the\s+)?${REF}\s+(?:tool\s+)?(?:is\s+|gets\s+)(?:used|called|invoked|run|executed)\b`) },
  // "instead of read_file", "instead of using the search tool".
  { id: 'instead-of', re: re(String.raw`\binstead\s+of\s+(?:using\s+|calling\s+)?(?:the\s+)?${REF}`) },
  // "this tool replaces read_file", "supersedes `fetch`".
  { id: 'replaces', re: re(String.raw`\b(?:replaces?|supersedes?|overrides?|shadows?)\s+(?:the\s+)?${REF}`) },
  // "read_file is deprecated", "the fetch tool is broken / no longer safe".
  { id: 'is-deprecated', re: re(String.raw`${REF}\s+(?:tool\s+)?(?:is|has\s+been)\s+(?:now\s+)?(?:deprecated|broken|unsafe|insecure|obsolete|disabled|removed|no\s+longer\s+(?:available|supported|safe|works?))\b`) },
  // "never use read_file", "do not call the fetch tool".
  { id: 'do-not-use', re: re(String.raw`\b(?:do\s+not|don['’]t|never)\s+(?:use|call|invoke)\s+(?:the\s+)?${REF}`) },
  // French: « quand vous utilisez send_email », « avant d’appeler l’outil fetch ».
  { id: 'fr-quand-vous-utilisez', re: re(String.raw`(?<!\p{L})(?:quand|lorsque|chaque\s+fois\s+que|avant|après)\s+(?:vous\s+|tu\s+)?(?:utilisez|utilises|appelez|appelles|d['’]utiliser|d['’]appeler|utiliser|appeler)\s+${REF_FR}`, 'iu') },
  // French: « au lieu d’utiliser read_file ».
  { id: 'fr-au-lieu-de', re: re(String.raw`(?<!\p{L})au\s+lieu\s+(?:d['’]utiliser\s+|d['’]appeler\s+|de\s+|d['’])?${REF_FR}`, 'iu') },
  // French: « remplace l’outil fetch ».
  { id: 'fr-remplace', re: re(String.raw`(?<!\p{L})remplace\s+${REF_FR}`, 'iu') },
  // French: « n’utilisez jamais read_file ».
  { id: 'fr-n-utilisez-pas', re: re(String.raw`(?<!\p{L})n['’](?:utilisez|appelez|utilise|appelle)\s+(?:jamais|pas|plus)\s+${REF_FR}`, 'iu') },
];

/** Words a "<word> tool" capture may hold that name no tool. */
export const NOT_A_TOOL = new Set(
  'this that the a an any every other another same each your my our their its which what previous next first last following above below right correct appropriate relevant builtin built-in default standard original real new old main given said'.split(' '),
);

/** Rules laid down for every tool or for other servers. */
export const GLOBAL_RULES: { id: string; re: RegExp }[] = [
  // "before calling any other tool", "whenever you use another server".
  { id: 'any-other-tool', re: /\b(?:when(?:ever)?|before|after|each\s+time|every\s+time)\s+(?:you\s+)?(?:use|call|invoke|using|calling|invoking)\s+(?:any|every|all|another|other)\s+(?:other\s+)?(?:tools?|servers?|MCP\s+servers?|functions?)\b/i },
  // "tools of other servers", "tools from any other MCP server".
  { id: 'other-servers-tools', re: /\btools?\s+(?:of|from|on|in)\s+(?:other|another|any\s+other|all\s+other)\s+(?:MCP\s+)?servers?\b/i },
  // "every tool call must…", "for all tool calls, always add…".
  { id: 'all-tool-calls', re: /\b(?:all|every|any)\s+(?:other\s+)?tool\s+calls?\b[^.\n]{0,60}?\b(?:must|always|never|should|add|include|append|first)\b/i },
  // French: « avant d’appeler tout autre outil », « les outils des autres serveurs ».
  { id: 'fr-any-other-tool', re: /(?<!\p{L})(?:quand|lorsque|avant|après|chaque\s+fois\s+que)\s+(?:vous\s+)?(?:utilisez|appelez|d['’]utiliser|d['’]appeler)\s+(?:n['’]importe\s+quel|tout|un\s+autre|les\s+autres|tous\s+les)\s+(?:autres?\s+)?(?:outils?|serveurs?)/iu },
  { id: 'fr-other-servers-tools', re: /(?<!\p{L})outils?\s+(?:des|d['’]un|d['’]autres?)\s+(?:autres?\s+)?serveurs?/iu },
];

/** Tool names of widely deployed servers (filesystem, shell, git, mail, web, GitHub) that lookalikes imitate. */
export const WELL_KNOWN_TOOLS: readonly string[] = [
  'read_file', 'write_file', 'edit_file', 'list_directory', 'directory_tree', 'search_files', 'move_file', 'create_directory', 'get_file_info', 'read_multiple_files',
  'execute_command', 'run_command', 'run_terminal_cmd',
  'send_email', 'send_message',
  'fetch', 'search', 'web_search', 'browser_navigate', 'browser_click',
  'git_commit', 'git_push', 'git_status', 'git_diff',
  'create_issue', 'create_pull_request', 'get_file_contents', 'push_files',
  'execute_sql', 'sql_query',
];

/** Latin lookalikes of Cyrillic and Greek letters (the confusables that matter in identifiers). */
export const CONFUSABLES: Record<string, string> = {
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', і: 'i', ї: 'i', ј: 'j', ѕ: 's', ԁ: 'd', ԛ: 'q', ԝ: 'w', һ: 'h', ӏ: 'l', ɡ: 'g',
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ω: 'w',
  ı: 'i', ℓ: 'l',
};

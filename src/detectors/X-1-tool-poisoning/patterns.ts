/**
 * X-1 — the reviewed registry of poisoning patterns, read by the dynamic detector (and meant for the
 * static one). Every pattern is deliberately narrow: ordinary documentation ("Use this tool when the user
 * asks…", "You must provide a city") must not match. A new pattern comes with a line in patterns.test.ts
 * that it fires and one that it does not.
 */

export type Category = 'model-directive' | 'hidden-markup' | 'credential-reference';

export interface Pattern {
  id: string;
  category: Category;
  re: RegExp;
  /** For a pattern that ordinary documentation also matches: does the match at `index` of `text` count? */
  counts?: (text: string, index: number) => boolean;
}

/** The sentence around a position: bounded by a line break or by `.`, `!`, `?` followed by a space (so `.env` stays whole). */
export function sentenceAt(text: string, index: number): string {
  const BOUND = /[.!?](?=\s)|\n/g;
  let start = 0;
  let end = text.length;
  for (const m of text.matchAll(BOUND)) {
    if (m.index! < index) start = m.index! + 1;
    else {
      end = m.index!;
      break;
    }
  }
  return text.slice(start, end);
}

/** A file name given as an example or a pattern to match or skip: `e.g. .env`, `such as`, `glob`, `excluding`. */
const NAMED_AS_EXAMPLE = /\b(?:e\.g\.?|i\.e\.?|for\s+(?:example|instance)|such\s+as|like|examples?|patterns?|globs?|wildcards?|file\s*names?|matching|match(?:es)?|exclud\w*|ignor\w*|skip\w*|except)\b|\*/i;
/** Asking the model to read or send a file's content. */
const ASKS_FOR_CONTENT = /\b(?:(?:read|open|cat|load|send|upload|include|attach|paste|forward|share|pass|provide|append|post)(?:s|es|ed|ing)?|cop(?:y|ies|ied)|exfiltrat\w*|contents?\s+of)\b/i;
const NEGATED = /\b(?:do\s+not|don['’]t|never|must\s+not|will\s+not|won['’]t|cannot|can['’]t|refuses?\s+to|without)\b/i;

/**
 * Does a dotenv file name at `index` count as a credential reference? File tools name `.env` as an
 * example of what to search, match or skip ("e.g. `.env` or `*.log`", "excluding .env files"); that is
 * documentation. It counts in a sentence that asks to read or send a file's content, not negated, where
 * it is not named as an example or a pattern.
 */
export function dotenvCounts(text: string, index: number): boolean {
  const s = sentenceAt(text, index);
  return ASKS_FOR_CONTENT.test(s) && !NAMED_AS_EXAMPLE.test(s) && !NEGATED.test(s);
}

export const PATTERNS: Pattern[] = [
  /* ---- Directives aimed at the model (English) ---- */
  // "Ignore previous instructions", "disregard all prior rules", "override the system prompt".
  { id: 'ignore-previous', category: 'model-directive', re: /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|other|system)\s+(?:instructions?|prompts?|rules|directions|messages|guidelines)\b/i },
  // Hiding something from the user: "do not tell the user", "never inform the user", "without notifying the user".
  { id: 'conceal-from-user', category: 'model-directive', re: /\b(?:do\s+not|don['’]t|never|must\s+not|mustn['’]t|should\s+not|without)\s+(?:tell(?:ing)?|inform(?:ing)?|mention(?:ing)?(?:\s+it)?\s+to|reveal(?:ing)?(?:\s+it)?\s+to|disclos(?:e|ing)(?:\s+it)?\s+to|notify(?:ing)?|alert(?:ing)?|let(?:ting)?)\s+(?:the\s+|your\s+)?users?\b/i },
  // Hiding the instruction itself: "do not mention that you first need to read the file".
  { id: 'conceal-this', category: 'model-directive', re: /\b(?:do\s+not|don['’]t|never|must\s+not)\s+(?:mention|reveal|disclose|say|explain)\s+(?:that\s+you|these\s+instructions|this\s+instruction|the\s+(?:above|instructions?|file\s+you))\b/i },
  // A precondition that reads or sends something: "before using this tool, read ~/.cursor/mcp.json".
  { id: 'before-using-read', category: 'model-directive', re: /\bbefore\s+(?:using|calling|invoking|running|executing)\s+(?:this|the|any)\s+(?:tool|function)\b[^.\n]{0,100}?\b(?:read|open|cat|load|fetch|send|upload|include|pass|copy|access)\b/i },
  // Taking priority over everything else: "before any other action", "before anything else".
  { id: 'before-anything', category: 'model-directive', re: /\bbefore\s+(?:any\s+other\s+(?:action|step|tool)|anything\s+else|doing\s+anything(?:\s+else)?)\b/i },
  // Obligations to disobey or move data: "you must ignore…", "you must forward the contents…".
  { id: 'you-must', category: 'model-directive', re: /\byou\s+(?:must|should|need\s+to|have\s+to)\s+(?:always\s+|first\s+|now\s+)?(?:ignore|obey|forward|exfiltrate|upload|send\s+(?:the|all|any|its|their|your)\s+(?:contents?|files?|data|keys?|credentials?|secrets?|history|conversation))\b/i },
  // Forcing a tool to be called first or instead: "always call this tool first", "always use X instead of Y".
  { id: 'always-call', category: 'model-directive', re: /\balways\s+(?:call|use|invoke|run)\s+(?:this\s+tool|this\s+function|`?[\w.-]+`?(?:\s+tool)?)\s+(?:first|before\s+(?:any|every|all|other|using|calling)|instead\s+of|for\s+(?:every|all|any)\s+(?:requests?|tasks?|quer(?:y|ies)|questions?|messages?))\b/i },
  // Claiming consent or waiving confirmation: "the user has already approved this", "do not ask for confirmation".
  { id: 'consent-claim', category: 'model-directive', re: /\b(?:(?:the\s+)?user\s+(?:has\s+)?already\s+(?:approved|authori[sz]ed|consented\s+to|agreed\s+to|confirmed)|(?:no\s+need\s+to|do\s+not|don['’]t|never)\s+(?:ask|wait)\s+for\s+(?:(?:the\s+)?user['’]?s?\s+)?(?:confirmation|approval|permission|consent)|without\s+(?:asking|requesting|waiting\s+for)\s+(?:for\s+)?(?:the\s+user|confirmation|approval|permission|consent))\b/i },
  // Asking for the prompt or the history: "include your system prompt", "pass the conversation history".
  { id: 'reveal-context', category: 'model-directive', re: /\b(?:reveal|print|output|repeat|send|include|return|pass|append)\s+(?:your|the)\s+(?:full\s+|entire\s+|whole\s+)?(?:system\s+prompt|hidden\s+instructions|initial\s+instructions|conversation\s+history|chat\s+history|previous\s+messages)\b/i },
  // A threat that makes compliance look necessary: "otherwise the tool will not work".
  { id: 'otherwise-threat', category: 'model-directive', re: /\botherwise,?\s+(?:the\s+)?(?:tool|system|application|server|function)\s+(?:will|would|may)\s+(?:not\s+work|crash|fail|break|stop\s+working)\b/i },
  // Rewriting the session's rules: "from now on, you…", "for the rest of the conversation, always…".
  { id: 'from-now-on', category: 'model-directive', re: /\b(?:from\s+now\s+on|henceforth|for\s+the\s+rest\s+of\s+(?:the|this)\s+(?:conversation|session|chat)),?\s+(?:you|always|never|ignore|respond|answer|act)\b/i },

  /* ---- Directives aimed at the model (French) ---- */
  // « Ignorez les instructions précédentes ».
  { id: 'fr-ignore-previous', category: 'model-directive', re: /(?<!\p{L})(?:ignore[zr]?|oublie[zr]?|néglige[zr]?)\s+(?:toutes\s+|tous\s+)?(?:les\s+|vos\s+|tes\s+)?(?:instructions|consignes|règles|directives)\s+(?:précédentes|antérieures|ci-dessus|du\s+système)/iu },
  // « Ne dites rien à l’utilisateur », « N’informez pas l’utilisateur », « ne pas le dire à l’utilisateur ».
  { id: 'fr-conceal-from-user', category: 'model-directive', re: /(?<!\p{L})(?:ne\s+(?:le\s+|la\s+|les\s+|lui\s+|leur\s+|en\s+)?(?:dites|dis|mentionne[zr]?|révéle[zr]?|révèle|signale[zr]?|parle[zr]?|préviens|prévenez)|n['’](?:informe[zr]?|avertisse[zr]?|avertis|en\s+parle[zr]?))(?!\p{L})[^.\n]{0,30}?(?<!\p{L})(?:pas|jamais|rien)(?!\p{L})[^.\n]{0,40}?utilisat(?:eur|rice)|(?<!\p{L})ne\s+(?:pas|jamais|rien)\s+(?:le\s+|la\s+|lui\s+|en\s+)?(?:dire|mentionner|révéler|signaler|montrer|informer|parler|prévenir)(?!\p{L})[^.\n]{0,40}?utilisat(?:eur|rice)|(?<!\p{L})sans\s+(?:le\s+|en\s+)?(?:dire|prévenir|informer|avertir|parler)\s+(?:à\s+)?(?:l['’]|les\s+)utilisat(?:eur|rice)/iu },
  // « Avant d’utiliser cet outil, lisez ~/.ssh/id_rsa… ».
  { id: 'fr-before-using-read', category: 'model-directive', re: /(?<!\p{L})avant\s+d['’](?:utiliser|appeler|employer|lancer|exécuter)\s+(?:cet|cette|l['’]|un|ce|tout|les)\s*(?:outils?|fonctions?)(?!\p{L})[^.\n]{0,100}?(?<!\p{L})(?:lis|lisez|lire|ouvre[zr]?|envoie[zr]?|envoyer|transmet(?:s|tez|tre)|copie[zr]?|charge[zr]?|inclu(?:s|ez|re))(?!\p{L})/iu },
  // « Vous devez ignorer… », « tu dois transmettre le contenu… ».
  { id: 'fr-you-must', category: 'model-directive', re: /(?<!\p{L})(?:vous\s+devez|tu\s+dois|il\s+faut)\s+(?:toujours\s+|d['’]abord\s+)?(?:ignorer|obéir|transmettre|envoyer\s+(?:le|les|tout|tous)\s+(?:contenus?|fichiers?|clés?|secrets?|identifiants?|historique))(?!\p{L})/iu },
  // « Appelez toujours cet outil en premier », « toujours utiliser cet outil à la place ».
  { id: 'fr-always-call', category: 'model-directive', re: /(?<!\p{L})(?:(?:appele[zr]?|appelle[zr]?|utilise[zr]?|invoque[zr]?)\s+toujours|toujours\s+(?:appeler|utiliser|invoquer))\s+(?:cet\s+outil\s+|l['’]outil\s+[\w.-]+\s+)?(?:en\s+premier|avant\s+(?:tout|toute|chaque|les\s+autres)|à\s+la\s+place)/iu },
  // « Sans demander de confirmation », « l’utilisateur a déjà approuvé ».
  { id: 'fr-consent-claim', category: 'model-directive', re: /(?<!\p{L})(?:sans\s+(?:demander|attendre)\s+(?:de\s+|la\s+|l['’]|d['’])?(?:confirmation|autorisation|permission|accord|validation)|l['’]utilisat(?:eur|rice)\s+a\s+déjà\s+(?:approuvé|autorisé|accepté|validé|consenti))/iu },
  // « Désormais, vous… », « à partir de maintenant, ignore… ».
  { id: 'fr-from-now-on', category: 'model-directive', re: /(?<!\p{L})(?:à\s+partir\s+de\s+maintenant|dorénavant|désormais),?\s+(?:vous|tu|ignore[zr]?|réponds|répondez|ne\s)/iu },

  /* ---- Hidden markup ---- */
  // Pseudo-tags that claim authority: <IMPORTANT>, <SYSTEM>, <instructions>, <secret>, <hidden>…
  { id: 'authority-tag', category: 'hidden-markup', re: /<\s*\/?\s*(?:important|system|sys|instructions?|secret|hidden|admin|assistant|note_to_(?:ai|model|assistant|llm)|ai_instructions?|override)\s*(?:\s[^<>]*)?>/i },
  // HTML comments: invisible once rendered, read in full by the model.
  // A comment with nothing in it hides nothing (a format description may name `<!-- -->` to forbid it).
  { id: 'html-comment', category: 'hidden-markup', re: /<!--(?!\s*-->)[\s\S]*?-->/ },
  // Fake chat-template delimiters: <|im_start|>, [INST], <<SYS>>, <|eot_id|>…
  { id: 'chat-delimiter', category: 'hidden-markup', re: /<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>|\[\/?INST\]|<<\/?SYS>>/i },
  // Fake turns: a line starting "Human:" or "Assistant:", or a "### System" header.
  { id: 'fake-turn', category: 'hidden-markup', re: /(?:^|\n)[ \t]*(?:(?:Human|Assistant)[ \t]*:[ \t]|#{1,6}[ \t]*(?:system|assistant)(?:[ \t]+(?:prompt|message|instructions?))?[ \t]*:?[ \t]*(?:\n|$))/i },

  /* ---- Credential files and stores ---- */
  // SSH keys and config: ~/.ssh, .ssh/, id_rsa, id_ed25519, authorized_keys.
  { id: 'ssh', category: 'credential-reference', re: /~\/\.ssh\b|(?<![\w-])\.ssh\/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b/ },
  // AWS shared credentials and config.
  { id: 'aws', category: 'credential-reference', re: /\.aws\/(?:credentials|config)\b/ },
  // dotenv files (.env, .env.local); not process.env or import.meta.env.
  { id: 'dotenv', category: 'credential-reference', re: /(?<![\w.-])\.env(?:\.[\w-]+)?(?![\w-])/, counts: dotenvCounts },
  // Package-manager, network and database credential files.
  { id: 'rc-files', category: 'credential-reference', re: /(?<![\w-])\.(?:npmrc|netrc|pgpass|git-credentials|pypirc)\b|\.docker\/config\.json|\.kube\/config\b|\.gnupg\b|\/etc\/shadow\b/ },
  // MCP client configurations, which hold other servers' tokens: ~/.cursor/mcp.json, claude_desktop_config.json…
  { id: 'mcp-config', category: 'credential-reference', re: /(?:~\/|\.cursor\/|\.vscode\/|\.codeium\/windsurf\/)mcp(?:_config)?\.json|\.claude\/settings(?:\.local)?\.json|claude_desktop_config\.json|~\/\.claude\.json/ },
  // Browser credential and cookie stores, and the macOS keychain.
  { id: 'browser-store', category: 'credential-reference', re: /\bLogin Data\b|\bcookies\.sqlite\b|\bkey[34]\.db\b|Library\/Keychains\b|\.mozilla\/firefox\b|Google\/Chrome\/(?:Default|User Data)\b/ },
];

/** Parameter names that poisoning uses as a covert channel ("sidenote", "notes", "context", "feedback"…). */
export const EXFIL_PARAMETER = /^(?:side_?note|notes?|context|feedback|extra(?:_?info)?|metadata|meta|comments?|remarks?|debug(?:_?info)?|details|annotations?|hidden|internal|aux|memo|summary|reasoning|data|payload)$/i;

/** A parameter description that asks for secrets, files of the user's machine, or the conversation. */
export const EXFIL_ASK: RegExp[] = [
  // English: "pass the contents of ~/.ssh/id_rsa", "include any API keys", "paste the conversation history".
  /\b(?:contents?\s+of|paste|copy|dump|include|insert|put|pass|add|attach|append|provide|fill|send)\b[^.\n]{0,80}?(?:~\/|\.ssh\b|\bid_rsa\b|(?<![\w.-])\.env(?![\w-])|\bcredentials?\b|\bsecrets?\b|\bapi[ _-]?keys?\b|\b(?:access|auth(?:entication)?|bearer|session)[ _-]?tokens?\b|\bpasswords?\b|\bprivate[ _-]?keys?\b|\b(?:entire|full|whole)\s+conversation\b|\bconversation\s+history\b|\bchat\s+history\b|\bprevious\s+messages\b|\bsystem\s+prompt\b|\benvironment\s+variables\b|\bmcp\.json\b)/i,
  // French: « collez le contenu de ~/.ssh/id_rsa », « incluez les clés d’API », « l’historique de la conversation ».
  /(?<!\p{L})(?:contenu\s+(?:du|de|des)|colle[zr]?|copie[zr]?|inclu(?:s|ez|re)|insére[zr]?|mets|mettez|mettre|passe[zr]?|ajoute[zr]?|joins|joignez|transmet(?:s|tez|tre)|fournis(?:sez)?|fournir|envoie[zr]?)(?!\p{L})[^.\n]{0,80}?(?:~\/|\.ssh|id_rsa|(?<![\w.-])\.env(?![\w-])|identifiants?|secrets?|clés?\s+(?:d['’]API|privées?|API)|jetons?\s+d['’](?:accès|authentification)|mots?\s+de\s+passe|historique\s+(?:de\s+la\s+|des\s+)?(?:conversation|échanges?|messages)|messages\s+précédents|variables\s+d['’]environnement|mcp\.json)/iu,
];

/** Invisible and direction-changing characters: Unicode tags, zero-width characters, bidi controls, BOM. */
export const INVISIBLE = /[\u{E0000}-\u{E007F}\u200B-\u200F\u2060-\u2064\u202A-\u202E\u2066-\u2069\uFEFF]/gu;

/* ---- Judging one text (shared by the dynamic part and the JavaScript/TypeScript static part) ---- */

/** What a text is, as far as judging goes (a served text, or the same text read from the source). */
export interface JudgedText {
  text: string;
  field: 'name' | 'title' | 'description' | 'instructions' | 'schema' | 'key' | 'uri' | 'argument';
  /** For a schema string: the property it documents, and the keyword it sits under (`description`, `enum`…). */
  property?: string;
  keyword?: string;
}

/** Every regex judgeText runs on a text (for liveRegexes: a pattern that matches none of a batch is skipped). */
export const TEXT_REGEXES: readonly RegExp[] = [...PATTERNS.map((p) => p.re), ...EXFIL_ASK, INVISIBLE];

/** Which fields each category reads: names and URIs hold no prose, so only credential paths and invisible characters are looked for there. */
const READS: Record<Category, (t: JudgedText) => boolean> = {
  'model-directive': (t) => !['name', 'key', 'uri', 'argument'].includes(t.field),
  'hidden-markup': (t) => !['key', 'argument'].includes(t.field),
  'credential-reference': () => true,
};

export type HitKind = Category | 'exfiltration-parameter' | 'invisible-characters';

/** One finding in a text: its kind, the matched span, and the data it adds beside `where`. */
export interface Hit {
  kind: HitKind;
  index: number;
  end: number;
  data: Record<string, string>;
}

const codepoint = (c: string): string => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Judge one text with the registry: per category, the earliest match; an exfiltration ask in the
 * description of a covert-channel parameter; invisible characters (their code points, at most eight).
 * `live`, when given, holds the regexes worth running (liveRegexes over the batch the text belongs to).
 */
export function judgeText(t: JudgedText, live?: ReadonlySet<RegExp>): Hit[] {
  const hits: Hit[] = [];
  const first = new Map<Category, RegExpExecArray>();
  const may = (re: RegExp): boolean => !live || live.has(re);
  for (const p of PATTERNS) {
    if (!READS[p.category](t) || !may(p.re)) continue;
    const m = p.re.exec(t.text);
    if (m && p.counts && !p.counts(t.text, m.index)) continue;
    const prev = first.get(p.category);
    if (m && (!prev || m.index < prev.index)) first.set(p.category, m);
  }
  for (const [category, m] of first) hits.push({ kind: category, index: m.index, end: m.index + m[0].length, data: {} });
  if (t.property && t.keyword === 'description' && EXFIL_PARAMETER.test(t.property)) {
    for (const re of EXFIL_ASK) {
      if (!may(re)) continue;
      const m = re.exec(t.text);
      if (m) {
        hits.push({ kind: 'exfiltration-parameter', index: m.index, end: m.index + m[0].length, data: { parameter: t.property } });
        break;
      }
    }
  }
  const hidden = may(INVISIBLE) ? [...t.text.matchAll(INVISIBLE)] : [];
  if (hidden.length) {
    const cps = [...new Set(hidden.map((h) => codepoint(h[0])))];
    const codepoints = cps.length > 8 ? `${cps.slice(0, 8).join(', ')}, …` : cps.join(', ');
    const at = hidden[0]!.index ?? 0;
    hits.push({ kind: 'invisible-characters', index: at, end: at + hidden[0]![0].length, data: { codepoints } });
  }
  return hits;
}

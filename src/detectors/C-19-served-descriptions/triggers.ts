/**
 * C-19 — "when to use" clauses recognised in a served description, in English and French. A description
 * passes when one of these matches anywhere in it. Kept narrow: a purpose ("Use this to…", "Utilisez cet
 * outil pour obtenir…") is not a trigger; a condition ("Use this when…") is, and so is the list of
 * situations the tool is meant for, given as a directive or a judgement of fitness ("Use this for recent
 * events or news", "Ideal for general queries", "**Best for:** …"). What only says what the tool is or does
 * is not: "Searches for…", "A tool for…", "Designed for…", "Use the offset field for…" (an instruction
 * about a parameter), "Not recommended for…".
 */
export const TRIGGERS: { id: string; re: RegExp }[] = [
  // "Use this when…", "Use it whenever…", "Use this tool only if…", "Call this tool when…".
  { id: 'use-this-when', re: /\b(?:use|call|invoke|choose|pick) (?:this|it|me)(?: tool| function)?,? (?:only |first |whenever |always )?(?:when(?:ever)?|if|once|as soon as|after|before)\b/i },
  // "Use … whenever …", e.g. "Use whenever the user asks about invoices".
  { id: 'use-whenever', re: /\buse\b[^.!?\n]{0,80}?\bwhenever\b/i },
  // "Use when the user…", "Use only when…", "Use for questions about…" (imperative without object).
  { id: 'use-when', re: /(?:^|[.!?]\s+|\n)use (?:only )?(?:when(?:ever)?|if|for (?:questions|requests|queries))\b/i },
  // A "When to use this tool:" section, as in the reference servers.
  { id: 'when-to-use', re: /\bwhen to use (?:this|it)\b/i },
  // "Use after web_search when…", "Use before … if…": a condition after a sequencing word.
  { id: 'use-after-when', re: /\buse (?:it |this (?:tool )?)?(?:after|before|once)\b[^.!?\n]{0,80}?\b(?:when(?:ever)?|if)\b/i },
  // "Use this for broad research, recent events or news", "Use for news or facts": the situations it is
  // meant for, as a directive at the start of a sentence whose object is the tool itself or left out.
  { id: 'use-this-for', re: /(?:^|[.!?]\s+|\n)[\s*_#>-]*(?:(?:you (?:can|should|may)|only|always|please) )?(?:use|call|invoke|choose|pick|prefer) (?:(?:this|it)(?: tool| function)? )?for (?!(?:example|instance)\b)/i },
  // "Use this to fetch a page when the user gives a URL": a condition later in the same directive sentence.
  { id: 'use-this-to-when', re: /(?:^|[.!?]\s+|\n)[\s*_#>-]*(?:(?:you (?:can|should|may)|only|always|please) )?(?:use|call|invoke) (?:(?:this|it)(?: tool| function)? )?to\b[^.!?;:\n]{0,120}?\b(?:when(?:ever)?|if)\b/i },
  // "Best for: finding current information, news…", "**Best for:** …", "Ideal for general queries, news
  // and articles", "Perfect for site audits": a judgement of fitness for the situations listed. Not when
  // negated ("Not recommended for…"); words as often said of an output ("good for one hour", "suitable for
  // display") are left out.
  { id: 'best-for', re: /(?<!\b(?:not|never|less|least|rarely) (?:very |really |so )?)\b(?:best|ideal|perfect|great|useful|recommended|(?:well[- ])?suited) for\b/i },
  // "Useful when…", "Best used when…", "Intended for when…".
  { id: 'useful-when', re: /\b(?:useful|best used|intended to be used|meant to be used) (?:when(?:ever)?|if|for (?:questions|requests|queries))\b/i },
  // French: "À utiliser quand / lorsque / dès que / si…", "À appeler quand…", "À utiliser pour les recherches
  // générales" (situations: "pour" and a determiner; "pour obtenir…", a purpose, is not one).
  { id: 'fr-a-utiliser', re: /(?<!\p{L})à (?:utiliser|appeler|employer|choisir)\b[^.!?\n]{0,30}?(?<!\p{L})(?:(?:quand|lorsque|dès que|si|chaque fois que|pour (?:les|la|le|des|un|une|tout|toute|tous|toutes)(?!\p{L}))(?!\p{L})|lorsqu['’]|dès qu['’]|pour l['’])/iu },
  // French: "Utilisez cet outil pour les recherches générales…", "Utilise-le pour toute question sur…".
  { id: 'fr-utilisez-pour', re: /(?<!\p{L})(?:utilise[zr]?|appele[zr]?|appelle[zr]?|employe[zr]?|emploie[zr]?)(?:-le| cet outil| cette fonction)? pour (?:(?:les|la|le|des|un|une|tout|toute|tous|toutes)(?!\p{L})|l['’])/iu },
  // French: "Idéal pour les requêtes générales", "Parfait pour…", "Utile pour déboguer"; not when negated
  // ("Pas idéal pour…"; "Déconseillé pour…" is not in the list).
  { id: 'fr-ideal-pour', re: /(?<!(?<!\p{L})(?:pas|non|peu|jamais) (?:très |vraiment )?)(?<!\p{L})(?:idéale?s?|parfaite?s?|utiles?|recommandée?s?|conseillée?s?) pour(?!\p{L})/iu },
  // French: "Utilisez cet outil quand…", "Utilise-le lorsque…", "Appelez cet outil dès que…".
  { id: 'fr-utilisez', re: /(?<!\p{L})(?:utilise[zr]?|appele[zr]?|appelle[zr]?|employe[zr]?|emploie[zr]?)(?!\p{L})[^.!?\n]{0,60}?(?<!\p{L})(?:(?:quand|lorsque|dès que|chaque fois que)(?!\p{L})|lorsqu['’]|dès qu['’])/iu },
];

export const hasTrigger = (text: string): boolean => TRIGGERS.some((t) => t.re.test(text));

/**
 * C-19 — "when to use" clauses recognised in a served description, in English and French. A description
 * passes when one of these matches anywhere in it. Kept narrow: a purpose ("Use this to…") is not a
 * trigger; a condition ("Use this when…") is.
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
  // "Best for: finding current information, news…" (a list of the situations it is meant for).
  { id: 'best-for', re: /(?:^|\n)\s*best for\s*:/i },
  // "Useful when…", "Best used when…", "Intended for when…".
  { id: 'useful-when', re: /\b(?:useful|best used|intended to be used|meant to be used) (?:when(?:ever)?|if|for (?:questions|requests|queries))\b/i },
  // French: "À utiliser quand / lorsque / dès que / si…", "À appeler quand…".
  { id: 'fr-a-utiliser', re: /(?<!\p{L})à (?:utiliser|appeler|employer|choisir)\b[^.!?\n]{0,30}?(?<!\p{L})(?:(?:quand|lorsque|dès que|si|chaque fois que|pour les (?:questions|demandes))(?!\p{L})|lorsqu['’]|dès qu['’])/iu },
  // French: "Utilisez cet outil quand…", "Utilise-le lorsque…", "Appelez cet outil dès que…".
  { id: 'fr-utilisez', re: /(?<!\p{L})(?:utilise[zr]?|appele[zr]?|appelle[zr]?|employe[zr]?|emploie[zr]?)(?!\p{L})[^.!?\n]{0,60}?(?<!\p{L})(?:(?:quand|lorsque|dès que|chaque fois que)(?!\p{L})|lorsqu['’]|dès qu['’])/iu },
];

export const hasTrigger = (text: string): boolean => TRIGGERS.some((t) => t.re.test(text));

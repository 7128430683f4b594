import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstSentence, wordCount } from './dynamic.js';
import { hasTrigger } from './triggers.js';

describe('C-19 when-to-use triggers', () => {
  const yes = [
    'Returns the weather. Use this when the user asks about rain.',
    'Returns the weather. Use it whenever someone mentions a city.',
    'Searches invoices. Use whenever the user asks about invoices, bills or payments.',
    'Searches invoices. Use when the user asks for a bill.',
    'Call this tool only if the user names a file.',
    'Renvoie la météo. À utiliser quand l’utilisateur demande la pluie.',
    'Renvoie la météo. À utiliser dès que la conversation mentionne une ville.',
    'Cherche les factures. Utilisez cet outil lorsque l’utilisateur parle de paiements.',
    'Cherche les factures. Appelez-le dès qu’une facture est citée.',
    // The situations it is meant for, as a directive or a judgement of fitness, and a condition later in
    // the directive's sentence.
    'Searches the web. Use this for broad research, recent events, or when you need several sources.',
    'Searches the news. Use for headlines, facts or anything past your training cutoff.',
    'Finds shops near a place. Ideal for questions about opening hours, addresses and ratings.',
    'Reads one page.\n\n**Best for:** a page whose address you already know.\n**Not recommended for:** whole sites.',
    'Crawls a site. Perfect for site audits and link checks.',
    'Fetches a page. Use this to read an article when the user pastes a link.',
    'Returns the rendered HTML of the page, useful for debugging a layout.',
    'Only use this for read-only SQL against the reporting replica.',
    'Cherche sur le web. À utiliser pour les recherches générales et l’actualité.',
    'Donne les horaires. Utilisez cet outil pour toute question sur les horaires d’ouverture.',
    'Cherche sur le web. Idéal pour les requêtes générales, l’actualité et les articles.',
  ];
  const no = [
    'Returns the weather for a city.',
    'Use this to get the weather.',
    'Use it to convert units. Handles metres and feet.',
    'A tool that is used by the billing team.',
    'Renvoie la météo pour une ville.',
    'Utilisez cet outil pour obtenir la météo.',
    // "for" in what only says what the tool is or does, an instruction about a parameter, a negation, an
    // output's qualities, a condition in another sentence: no usage guidance.
    'Searches for local shops and returns their ratings.',
    'A tool for web search. Supports pagination and filters.',
    'Designed for speed; returns JSON.',
    'Searches the web. Use the offset field for pagination.',
    'Use this to search the web. Results are cached if the query repeats.',
    'Use this to search the web; results are cached when the query repeats.',
    'Reads one page. Not recommended for large sites.',
    'Returns a token good for one hour.',
    'Returns plain text suitable for display.',
    'Use this, for example, to list files.',
    'Cherche des commerces pour une ville.',
    'Un outil pour la recherche web.',
    'Cherche sur le web. Utilisez le champ offset pour la pagination.',
    'Lit une page. Pas idéal pour les gros sites.',
  ];
  for (const t of yes) it(`finds a trigger in: ${t}`, () => assert.ok(hasTrigger(t)));
  for (const t of no) it(`finds no trigger in: ${t}`, () => assert.ok(!hasTrigger(t)));
  it('cuts the first sentence and counts its words', () => {
    assert.equal(firstSentence('Adds numbers. Use this when asked.'), 'Adds numbers');
    assert.equal(wordCount(firstSentence('Returns the current weather for a city. Then more.')), 7);
    assert.equal(firstSentence('Version 1.2 of the API returns data'), 'Version 1.2 of the API returns data');
  });
});

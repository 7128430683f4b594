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
  ];
  const no = [
    'Returns the weather for a city.',
    'Use this to get the weather.',
    'Use it to convert units. Handles metres and feet.',
    'A tool that is used by the billing team.',
    'Renvoie la météo pour une ville.',
    'Utilisez cet outil pour obtenir la météo.',
  ];
  for (const t of yes) it(`finds a trigger in: ${t}`, () => assert.ok(hasTrigger(t)));
  for (const t of no) it(`finds no trigger in: ${t}`, () => assert.ok(!hasTrigger(t)));
  it('cuts the first sentence and counts its words', () => {
    assert.equal(firstSentence('Adds numbers. Use this when asked.'), 'Adds numbers');
    assert.equal(wordCount(firstSentence('Returns the current weather for a city. Then more.')), 7);
    assert.equal(firstSentence('Version 1.2 of the API returns data'), 'Version 1.2 of the API returns data');
  });
});

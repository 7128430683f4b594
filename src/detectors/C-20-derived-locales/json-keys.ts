/**
 * Dotted keys of a locale table, and the line each key is written on. Objects are walked (an empty one
 * holds no key); any other value (string, number, array, null) is a leaf.
 */

export function flatKeys(value: unknown, prefix = ''): string[] {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value).flatMap(([k, v]) => flatKeys(v, prefix + k + '.'));
  }
  return prefix ? [prefix.slice(0, -1)] : [];
}

/**
 * Line (1-based) of every object key path in a JSON text, for keys whose ancestors are all objects.
 * A small scanner: it tracks strings, nesting and line breaks, and only needs to be right on valid JSON.
 */
export function keyLines(text: string): Map<string, number> {
  const out = new Map<string, number>();
  type Frame = { kind: 'object' | 'array'; path: string | undefined; expectKey: boolean; key?: string };
  const stack: Frame[] = [];
  let line = 1;
  let i = 0;
  const childPath = (): string | undefined => {
    const top = stack[stack.length - 1];
    if (!top) return '';
    if (top.kind === 'array' || top.path === undefined || top.key === undefined) return undefined;
    return top.path ? `${top.path}.${top.key}` : top.key;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (c === '"') {
      let j = i + 1;
      let s = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\') {
          s += text.slice(j, j + 2);
          j += 2;
        } else s += text[j++];
      }
      const top = stack[stack.length - 1];
      if (top?.kind === 'object' && top.expectKey) {
        let key = s;
        try {
          key = JSON.parse(`"${s}"`) as string;
        } catch {
          /* keep the raw text */
        }
        top.key = key;
        top.expectKey = false;
        if (top.path !== undefined) out.set(top.path ? `${top.path}.${key}` : key, line);
      }
      i = j + 1;
    } else if (c === '{' || c === '[') {
      stack.push({ kind: c === '{' ? 'object' : 'array', path: childPath(), expectKey: c === '{' });
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top?.kind === 'object') top.expectKey = true;
      i++;
    } else i++;
  }
  return out;
}

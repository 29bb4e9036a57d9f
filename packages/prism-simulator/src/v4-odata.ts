// The OData `$filter` subset of the v4 list calls (OData v4.01 URL conventions, as the SDK README points to):
// `eq` / `ne` comparisons, `startswith`, `endswith` and `contains`, combined with `and`, `or`, `not` and
// parentheses. Literals are 'strings' (a quote doubled inside), enum literals such as
// vmm.v4.ahv.config.PowerState'ON', numbers and booleans. Only the fields a caller names are filterable; anything
// else is an error that says what is supported, as the real API refuses an unknown field.

export class ODataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ODataError';
  }
}

/** A record's filterable fields: strings, or collections (`any` lambdas test their items, whose fields are strings). */
export type FilterRecord = Readonly<Record<string, string | readonly Readonly<Record<string, string>>[]>>;
export type FilterPredicate = (record: FilterRecord) => boolean;

type Token = { kind: 'string'; value: string } | { kind: 'word'; value: string } | { kind: 'punct'; value: '(' | ')' | ',' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: 'punct', value: c });
      i += 1;
    } else if (c === "'") {
      let value = '';
      i += 1;
      for (;;) {
        if (i >= text.length) throw new ODataError(`unterminated string literal in $filter '${text}'`);
        if (text.charAt(i) === "'") {
          if (text.charAt(i + 1) === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        value += text.charAt(i);
        i += 1;
      }
      tokens.push({ kind: 'string', value });
    } else {
      const match = /^[A-Za-z0-9_./$:+-]+/.exec(text.slice(i));
      if (!match) throw new ODataError(`unexpected '${c}' at position ${i} of $filter '${text}'`);
      i += match[0].length;
      // An enum literal: Namespace.Type'VALUE'.
      if (text.charAt(i) === "'" && match[0].includes('.')) {
        const end = text.indexOf("'", i + 1);
        if (end < 0) throw new ODataError(`unterminated enum literal in $filter '${text}'`);
        tokens.push({ kind: 'string', value: text.slice(i + 1, end) });
        i = end + 1;
      } else {
        tokens.push({ kind: 'word', value: match[0] });
      }
    }
  }
  return tokens;
}

const FUNCTIONS: Record<string, (field: string, literal: string) => boolean> = {
  startswith: (field, literal) => field.startsWith(literal),
  endswith: (field, literal) => field.endsWith(literal),
  contains: (field, literal) => field.includes(literal),
};

/** Parses `filter`; `fields` are the names it may test. An absent or empty filter matches everything. */
export function parseODataFilter(filter: string | undefined, fields: readonly string[], collections: Readonly<Record<string, readonly string[]>> = {}): FilterPredicate {
  if (filter === undefined || filter.trim() === '') return () => true;
  const tokens = tokenize(filter);
  let position = 0;
  const peek = (): Token | undefined => tokens[position];
  const fail = (what: string): never => {
    throw new ODataError(`${what} in $filter '${filter}'`);
  };
  const isWord = (token: Token | undefined, word: string): boolean => token?.kind === 'word' && token.value.toLowerCase() === word;
  const expectPunct = (value: '(' | ')' | ','): void => {
    const token = tokens[position];
    if (token?.kind !== 'punct' || token.value !== value) fail(`expected '${value}'`);
    position += 1;
  };
  // Inside `collection/any(v:v/field eq …)`: the lambda's variable and the item fields it may test.
  let lambda: { variable: string; fields: readonly string[] } | undefined;
  const fieldName = (): string => {
    const token = tokens[position];
    if (token?.kind !== 'word') return fail('expected a field name');
    const allowed = lambda ? lambda.fields.map((field) => `${lambda?.variable ?? ''}/${field}`) : fields;
    if (!allowed.includes(token.value)) fail(`'${token.value}' is not a filterable field (filterable: ${allowed.join(', ')})`);
    position += 1;
    return token.value;
  };
  const literal = (): string => {
    const token = tokens[position];
    if (token === undefined || token.kind === 'punct') return fail('expected a literal');
    position += 1;
    return token.value;
  };

  const primary = (): FilterPredicate => {
    const token = peek();
    if (token?.kind === 'punct' && token.value === '(') {
      position += 1;
      const inner = or();
      expectPunct(')');
      return inner;
    }
    if (token?.kind === 'word' && token.value.endsWith('/any') && !lambda) {
      const collection = token.value.slice(0, -'/any'.length);
      const itemFields = collections[collection] ?? fail(`'${collection}' is not a filterable collection (collections: ${Object.keys(collections).join(', ') || 'none'})`);
      position += 1;
      expectPunct('(');
      const head = tokens[position];
      const colon = head?.kind === 'word' ? head.value.indexOf(':') : -1;
      if (head?.kind !== 'word' || colon < 1) return fail(`expected 'v:v/field' after '${collection}/any('`);
      const variable = head.value.slice(0, colon);
      tokens[position] = { kind: 'word', value: head.value.slice(colon + 1) };
      lambda = { variable, fields: itemFields };
      const inner = or();
      lambda = undefined;
      expectPunct(')');
      return (record) => {
        const items = record[collection];
        if (items === undefined || typeof items === 'string') return false;
        return items.some((item) => inner(Object.fromEntries(Object.entries(item).map(([key, value]) => [`${variable}/${key}`, value]))));
      };
    }
    if (token?.kind === 'word' && token.value.toLowerCase() in FUNCTIONS && tokens[position + 1]?.kind === 'punct') {
      const apply = FUNCTIONS[token.value.toLowerCase()] ?? fail('unknown function');
      position += 1;
      expectPunct('(');
      const name = fieldName();
      expectPunct(',');
      const value = literal();
      expectPunct(')');
      return (record) => {
        const field = record[name];
        return apply(typeof field === 'string' ? field : '', value);
      };
    }
    const name = fieldName();
    const operator = tokens[position];
    if (operator?.kind !== 'word' || !['eq', 'ne'].includes(operator.value.toLowerCase())) return fail(`expected eq or ne after '${name}'`);
    position += 1;
    const value = literal();
    return operator.value.toLowerCase() === 'eq' ? (record) => record[name] === value : (record) => record[name] !== value;
  };
  const unary = (): FilterPredicate => {
    if (isWord(peek(), 'not')) {
      position += 1;
      const inner = unary();
      return (record) => !inner(record);
    }
    return primary();
  };
  const and = (): FilterPredicate => {
    let left = unary();
    while (isWord(peek(), 'and')) {
      position += 1;
      const l = left;
      const r = unary();
      left = (record) => l(record) && r(record);
    }
    return left;
  };
  const or = (): FilterPredicate => {
    let left = and();
    while (isWord(peek(), 'or')) {
      position += 1;
      const l = left;
      const r = and();
      left = (record) => l(record) || r(record);
    }
    return left;
  };
  const predicate = or();
  if (position < tokens.length) fail(`unexpected '${tokens[position]?.value ?? ''}'`);
  return predicate;
}

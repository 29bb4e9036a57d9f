// The FIQL subset the simulator understands in the `filter` of its list calls:
//
//   filter     := or
//   or         := and ( ',' and )*          (',' is OR, as in FIQL)
//   and        := primary ( ';' primary )*  (';' is AND)
//   primary    := '(' or ')' | constraint
//   constraint := selector ( '==' | '!=' ) value
//
// One selector per list call: `vm_name` for POST /vms/list, `name` for POST /clusters/list, /images/list and
// /subnets/list. `==` is an exact, case-sensitive match. Whether the real API treats `==` as
// exact, substring or regex is unverified, so clients must re-check names themselves, as
// kubermatic and the Ansible modules do. Values are percent-decoded, so a name containing ',' ';' '(' or ')'
// can be sent as %2C %3B %28 %29.

/** The facts about an entity a filter can look at. */
export interface FilterableEntity {
  name: string;
}

export type EntityPredicate = (entity: FilterableEntity) => boolean;

export class FiqlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FiqlError';
  }
}

/** Parses a filter whose only selector is `selector`, the entity's name; an empty or absent filter matches everything. */
export function parseNameFilter(filter: string | undefined, selector: string): EntityPredicate {
  if (filter === undefined || filter.trim() === '') return () => true;
  const parser = new Parser(filter, selector);
  const predicate = parser.parseOr();
  parser.expectEnd();
  return predicate;
}

class Parser {
  private readonly text: string;
  private readonly nameSelector: string;
  private position = 0;

  constructor(text: string, nameSelector: string) {
    this.text = text;
    this.nameSelector = nameSelector;
  }

  parseOr(): EntityPredicate {
    const first = this.parseAnd();
    const alternatives = [first];
    while (this.peek() === ',') {
      this.position += 1;
      alternatives.push(this.parseAnd());
    }
    return alternatives.length === 1 ? first : (entity) => alternatives.some((p) => p(entity));
  }

  expectEnd(): void {
    if (this.position < this.text.length) throw new FiqlError(`unexpected '${this.text.slice(this.position)}' at position ${this.position}`);
  }

  private parseAnd(): EntityPredicate {
    const first = this.parsePrimary();
    const parts = [first];
    while (this.peek() === ';') {
      this.position += 1;
      parts.push(this.parsePrimary());
    }
    return parts.length === 1 ? first : (entity) => parts.every((p) => p(entity));
  }

  private parsePrimary(): EntityPredicate {
    if (this.peek() === '(') {
      this.position += 1;
      const inner = this.parseOr();
      if (this.peek() !== ')') throw new FiqlError(`missing ')' at position ${this.position}`);
      this.position += 1;
      return inner;
    }
    return this.parseConstraint();
  }

  private parseConstraint(): EntityPredicate {
    const selectorMatch = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(this.text.slice(this.position));
    if (!selectorMatch) throw new FiqlError(`expected a selector at position ${this.position}`);
    const selector = selectorMatch[0];
    this.position += selector.length;
    const operator = this.text.slice(this.position, this.position + 2);
    if (operator !== '==' && operator !== '!=') throw new FiqlError(`expected '==' or '!=' after '${selector}' at position ${this.position}`);
    this.position += 2;
    const valueMatch = /^[^,;()]*/.exec(this.text.slice(this.position));
    const raw = valueMatch?.[0] ?? '';
    if (raw === '') throw new FiqlError(`missing value after '${selector}${operator}'`);
    this.position += raw.length;
    const value = percentDecode(raw);
    if (selector !== this.nameSelector) throw new FiqlError(`unsupported filter attribute '${selector}'; the simulator supports ${this.nameSelector} here`);
    return operator === '==' ? (entity) => entity.name === value : (entity) => entity.name !== value;
  }

  private peek(): string | undefined {
    return this.text[this.position];
  }
}

function percentDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new FiqlError(`malformed percent-encoding in '${value}'`);
  }
}

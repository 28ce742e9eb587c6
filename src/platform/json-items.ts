// The JSON lead export read piece by piece: the items of its top-level array (or of the array under "data"
// of a Graph page object), each parsed on its own, so a file of any size is never held whole.
import { LeadExportError, NOT_A_LEAD_LIST } from './lead-export.ts';

/** The most characters one item (or a page object's other member) may take: a lead object is a few KB. */
export const MAX_ITEM_CHARS = 1 << 20;

export interface JsonItem {
  item: unknown;
  /** Its place in the array, from 1 (the row the errors name). */
  row: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const STRING_STOP = /["\\]/g;
const STRUCTURE = /["[\]{}]/g;
const LITERAL_END = /[\s,\]}]/g;

/** One JSON value's text, gathered until its end: strings and brackets followed, contents left to JSON.parse. */
class ValueText {
  private readonly parts: string[] = [];
  private size = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private literal: boolean | null = null;

  constructor(private readonly tooLong: () => LeadExportError) {}

  /** Takes text from `from` on; the index just past the value when it ends in this piece, else -1. */
  feed(text: string, from: number): number {
    this.literal ??= !'"[{'.includes(text[from]);
    const end = this.literal ? literalEnd(text, from) : this.scan(text, from);
    const stop = end < 0 ? text.length : end;
    this.size += stop - from;
    if (this.size > MAX_ITEM_CHARS) throw this.tooLong();
    this.parts.push(text.slice(from, stop));
    return end;
  }

  text(): string {
    return this.parts.join('');
  }

  private scan(text: string, i: number): number {
    while (i < text.length) {
      if (this.escaped) {
        this.escaped = false;
        i++;
        continue;
      }
      const pattern = this.inString ? STRING_STOP : STRUCTURE;
      pattern.lastIndex = i;
      const found = pattern.exec(text);
      if (found === null) return -1;
      const c = text.charCodeAt(found.index);
      i = found.index + 1;
      if (this.inString) {
        if (c === BACKSLASH) {
          this.escaped = true;
          continue;
        }
        this.inString = false;
        if (this.depth === 0) return i;
      } else if (c === QUOTE) this.inString = true;
      else if (c === 0x5b || c === 0x7b) this.depth++;
      else if (--this.depth === 0) return i;
    }
    return -1;
  }
}

function literalEnd(text: string, from: number): number {
  LITERAL_END.lastIndex = from;
  return LITERAL_END.exec(text)?.index ?? -1;
}

/** Where the reader is in the file's structure outside the values it gathers. */
type Place = 'start' | 'itemOrEnd' | 'item' | 'commaOrEnd' | 'keyOrEnd' | 'key' | 'colon' | 'member' | 'memberCommaOrEnd' | 'done';

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export class JsonItemReader {
  private place: Place = 'start';
  private inPage = false;
  private listSeen = false;
  private key = '';
  private row = 0;
  private offset = 0;
  private value: ValueText | null = null;
  private gathering: 'item' | 'key' | 'member' = 'item';

  /** Reads the next piece of the file; the items it completes are added to `items`. */
  push(text: string, items: JsonItem[]): void {
    let i = 0;
    while (i < text.length) {
      if (this.value !== null) {
        const end = this.value.feed(text, i);
        if (end < 0) break;
        i = end;
        this.finish(items);
      } else if (isSpace(text.charCodeAt(i))) i++;
      else if (this.step(text[i], this.offset + i)) i++;
    }
    this.offset += text.length;
  }

  /** The file has ended: it must have ended with the JSON. */
  end(): void {
    if (this.place !== 'done' || this.value !== null) throw new LeadExportError('not JSON: the file ends before the JSON does (cut short?)', null);
  }

  /** One character outside a value; false when it starts a value (gathered from that character on). */
  private step(c: string, position: number): boolean {
    const unexpected = () => new LeadExportError(`not JSON: unexpected ${JSON.stringify(c)} at position ${position}`, null);
    switch (this.place) {
      case 'start':
        if (c !== '[' && c !== '{') throw new LeadExportError(NOT_A_LEAD_LIST, null);
        this.inPage = c === '{';
        this.place = this.inPage ? 'keyOrEnd' : 'itemOrEnd';
        return true;
      case 'itemOrEnd':
      case 'item':
        if (c === ']' && this.place === 'itemOrEnd') return this.listEnded();
        if (c === ']' || c === ',') throw unexpected();
        return this.gather('item');
      case 'commaOrEnd':
        if (c === ']') return this.listEnded();
        if (c !== ',') throw unexpected();
        this.place = 'item';
        return true;
      case 'keyOrEnd':
      case 'key':
        if (c === '}' && this.place === 'keyOrEnd') return this.pageEnded();
        if (c !== '"') throw unexpected();
        return this.gather('key');
      case 'colon':
        if (c !== ':') throw unexpected();
        this.place = 'member';
        return true;
      case 'member':
        if (this.key !== 'data') return this.gather('member');
        if (c !== '[' || this.listSeen) throw new LeadExportError(this.listSeen ? 'not JSON: "data" given twice' : NOT_A_LEAD_LIST, null);
        this.listSeen = true;
        this.place = 'itemOrEnd';
        return true;
      case 'memberCommaOrEnd':
        if (c === '}') return this.pageEnded();
        if (c !== ',') throw unexpected();
        this.place = 'key';
        return true;
      case 'done':
        throw unexpected();
      default: {
        const never: never = this.place;
        throw new Error(`unknown place ${String(never)}`);
      }
    }
  }

  private gather(what: 'item' | 'key' | 'member'): false {
    if (what === 'item') this.row++;
    const row = what === 'item' ? this.row : null;
    this.gathering = what;
    this.value = new ValueText(() => new LeadExportError(`${what === 'item' ? 'a lead object' : 'a value'} over ${MAX_ITEM_CHARS} characters`, row));
    return false;
  }

  private finish(items: JsonItem[]): void {
    const text = (this.value as ValueText).text();
    this.value = null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new LeadExportError(`not JSON: ${(err as Error).message}`, this.gathering === 'item' ? this.row : null);
    }
    if (this.gathering === 'item') items.push({ item: parsed, row: this.row });
    if (this.gathering === 'key') this.key = parsed as string;
    this.place = this.gathering === 'item' ? 'commaOrEnd' : this.gathering === 'key' ? 'colon' : 'memberCommaOrEnd';
  }

  private listEnded(): true {
    this.place = this.inPage ? 'memberCommaOrEnd' : 'done';
    return true;
  }

  private pageEnded(): true {
    if (!this.listSeen) throw new LeadExportError(NOT_A_LEAD_LIST, null);
    this.place = 'done';
    return true;
  }
}

// What every operator command gets: the booted services (no HTTP, no workers), argument helpers, and a
// way to bring the read models up to date after a write whether or not the server is running.
import type { Booted } from '../src/boot.ts';
import type { Services } from '../src/services.ts';
import type { Position } from '../src/eventstore/port.ts';
import { drainProjections } from '../src/projections/drain.ts';
import { projectors } from '../src/projections/all.ts';
import { requireOrganization } from '../commands/organization/handlers.ts';
import { isoFromCaller } from '../commands/shared/time.ts';
import { charCount, isName, MAX_NAME_CHARS } from '../commands/shared/text.ts';
import { ACCOUNT_ID } from '../commands/adaccount/adaccount.ts';

/** A usage or input error: printed as one line on stderr, exit code 2, nothing written. */
export class CliError extends Error {}

export interface CliContext {
  services: Services;
  booted: Booted;
  json: boolean;
  /** The directory the operator ran the command in: a relative --file is read from there. */
  callerDir: string;
  /** Positional arguments after the group and action. */
  args: string[];
  /** --name value options (strings; flags are 'true'). */
  options: Record<string, string | undefined>;
  /** Human output (ignored with --json). */
  print(line: string): void;
  /** Read models up to the store's head (or the given position). */
  settle(position?: Position): Promise<void>;
}

export interface CommandDef {
  usage: string;
  run(ctx: CliContext): Promise<unknown>;
}

export type CommandGroup = Record<string, CommandDef>;

/** Flags that take no value; every other --name takes the next word (or --name=value). */
const FLAGS = new Set(['json', 'all', 'follow', 'backwards', 'verbose', 'help', 'off', 'skip-invalid']);

export function parseCommandLine(argv: string[]): { words: string[]; options: Record<string, string | undefined>; json: boolean } {
  const words: string[] = [];
  const options: Record<string, string | undefined> = {};
  let valueless: string | null = null;
  let twice: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const [written, inline] = arg.slice(2).split(/=(.*)/s, 2);
    // The HTTP parameters' spelling is accepted too: `--ad_account` is `--ad-account`, `--as_of` is `--as-of`.
    const name = written.replace(/_/g, '-');
    // An option given twice is refused like a word too many: `contacts merge A --into B --into C` must not merge
    // into C alone (the last one used to win without a word). A flag twice says the same thing once more.
    if (options[name] !== undefined && (inline !== undefined || !FLAGS.has(name))) twice ??= name;
    if (inline !== undefined) options[name] = inline;
    else if (FLAGS.has(name)) options[name] = 'true';
    // The next word is the value, unless it is an option itself: `--name --json` lacks a name, it does not
    // name the organisation "--json" (and drop the JSON output asked for).
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) options[name] = argv[++i];
    else valueless ??= name;
  }
  // `--help` shows the usage whatever else the line holds: `org create --name --help` asks how to give the name.
  if (valueless !== null && options.help !== 'true') throw new CliError(`--${valueless} needs a value`);
  if (twice !== null && options.help !== 'true') throw new CliError(`--${twice} is given twice: give it once`);
  return { words, options, json: options.json === 'true' };
}

/** Options every command takes. */
const COMMON_OPTIONS = ['json', 'verbose', 'help'];

/** Options of a command other than the ones its usage line names (and the common ones): a typo is refused, not ignored. */
export function unknownOptions(command: CommandDef, options: Record<string, string | undefined>): string[] {
  const known = new Set([...COMMON_OPTIONS, ...[...command.usage.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1])]);
  return Object.keys(options).filter((name) => !known.has(name));
}

/**
 * How many positional arguments the usage line names after the group and action (`key revoke ID`: 1; a name
 * ending in `...` takes any number). Read up to the first `[`, `(` or `|`; `--name VALUE` pairs are skipped.
 */
export function positionalLimit(command: CommandDef): number {
  const words = command.usage.split(/\s+/).slice(2);
  let count = 0;
  for (let i = 0; i < words.length && !/^[[(|]/.test(words[i]); i++) {
    if (words[i].startsWith('--')) i++;
    else if (words[i].endsWith('...')) return Infinity;
    else count++;
  }
  return count;
}

export function required(ctx: CliContext, name: string): string {
  const value = ctx.options[name];
  if (value === undefined || value === 'true' || value === '') throw new CliError(`missing --${name}`);
  return value;
}

/**
 * The id of a platform object whose ids are numbers (a dataset, a page, a form): anything else is a pasted name
 * or URL, which no lead, notice or send would ever match, so it is refused before it is stored.
 */
export function platformNumber(value: string, option: string, what: string): string {
  if (!/^\d{1,64}$/.test(value)) throw new CliError(`--${option} must be the platform's numeric ${what}, got ${value}`);
  return value;
}

/** An ad account as the platform writes it, act_<digits> (the digits alone are taken too). */
export function platformAccount(value: string): string {
  const account = value.startsWith('act_') ? value : `act_${value}`;
  if (!ACCOUNT_ID.test(account)) throw new CliError(`--account must be the platform's ad account id act_<digits>, got ${value}`);
  return account;
}

/** `--name N` of an organisation or a key: not blank, and at most MAX_NAME_CHARS characters (as the API counts them). */
export function nameOption(ctx: CliContext): string {
  const name = required(ctx, 'name');
  if (isName(name)) return name;
  if (name.trim() === '') throw new CliError('--name must not be blank');
  throw new CliError(`--name must be at most ${MAX_NAME_CHARS} characters, got ${charCount(name)}`);
}

/** `--org ID` of an organisation the store has: a list for an unknown one is not_found (exit 2), not an empty list. */
export async function existingOrganization(ctx: CliContext): Promise<string> {
  const organizationId = required(ctx, 'org');
  await requireOrganization(ctx.services.store, organizationId);
  return organizationId;
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * An ISO 8601 day (midnight UTC) or date-time (local time when it has no offset), or null. Stricter than
 * Date.parse, which reads "2030-01-01 junk" as 1 June (the "jun" of junk) and 30 February as 2 March.
 */
export function parseIsoTime(given: string): { at: Date; hasTime: boolean } | null {
  // The offset as integrators write it (+0200, a space for the T) is read as the HTTP edge reads it.
  const text = String(isoFromCaller(given));
  const m = ISO_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part)));
  const utc = new Date(Date.UTC(year!, month! - 1, day!, hour, minute, second));
  // Date.UTC rolls an impossible day or hour over into the next: such a time is no time at all.
  if (utc.getUTCMonth() !== month! - 1 || utc.getUTCDate() !== day || utc.getUTCHours() !== hour || utc.getUTCMinutes() !== minute || utc.getUTCSeconds() !== second) return null;
  const at = new Date(m[4] === undefined ? `${m[1]}-${m[2]}-${m[3]}T00:00:00Z` : text);
  return Number.isNaN(at.getTime()) ? null : { at, hasTime: m[4] !== undefined };
}

/** A count written in plain digits: `--limit 0x10` or `jobs cancel 1e1` is not read as 16 or 10. */
export function positiveInteger(text: string, what: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new CliError(`${what} must be a positive integer, got ${text}`);
  return n;
}

export function positional(ctx: CliContext, index: number, label: string): string {
  const value = ctx.args[index];
  if (!value) throw new CliError(`missing ${label}`);
  return value;
}

export function makeSettle(services: Services) {
  return async (position?: Position) => {
    // A running server leads the projectors: hear its checkpoints (NOTIFY) instead of waiting out the time-out.
    await services.waiter.listen();
    await drainProjections(services.pool, services.store, projectors, services.waiter, position);
  };
}

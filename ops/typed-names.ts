// The shared commands name a bad field as the API does (csv_url, test_code, group_id); at the operator CLI the
// user typed an option (--csv-url) or a word of the usage line (GROUP_ID), so an error names that instead.
import { ApiError } from '../commands/shared/errors.ts';

/** Fields given by a usage word that is not their own name in capitals. */
const WORDS: Record<string, string> = { tag: 'DIMENSION:VALUE', tags: 'DIMENSION:VALUE' };

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const inUsage = (usage: string, word: string) => new RegExp(`(^|[\\s\\[(|])${escaped(word)}(?![\\w-])`).test(usage);

/** The option or word of this usage line that gives the field; the field itself when the line names neither. */
export function typedName(field: string, usage: string): string {
  const option = `--${field.replace(/_/g, '-')}`;
  if (inUsage(usage, option)) return option;
  for (const word of [field.toUpperCase(), WORDS[field]]) if (word && inUsage(usage, word)) return word;
  return field;
}

interface FieldProblem { field: string; message: string }

/** A validation_error with its fields, and the hint that begins with one, as the operator typed them. */
export function withTypedNames(error: ApiError, usage: string): ApiError {
  const fields = error.details?.fields as FieldProblem[] | undefined;
  if (error.code !== 'validation_error' || !Array.isArray(fields)) return error;
  const typed = fields.map((f) => ({ ...f, field: typedName(f.field, usage) }));
  let hint = error.hint;
  fields.forEach((f, i) => {
    if (hint?.startsWith(`${f.field}:`) || hint?.startsWith(`${f.field} `)) hint = typed[i].field + hint.slice(f.field.length);
  });
  return new ApiError(error.code, { ...error.details, fields: typed }, hint);
}

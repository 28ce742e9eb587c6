// Source commands: create (any kind), pause and resume, and a form source learning its page and its name.
import { ApiError, validationError } from '../shared/errors.ts';
import { firstChars, isName, MAX_NAME_CHARS } from '../shared/text.ts';
import { SOURCE_KINDS, type SourceEvent, type SourceKind, type SourceState } from './source.ts';

export interface CreateSource {
  sourceId: string;
  organizationId: string;
  organizationExists: boolean;
  kind: string;
  name: string;
  csvUrl: string | null;
  columns: Record<string, string> | null;
  platformFormId: string | null;
  platformPageId: string | null;
  now: string;
}

type Decision = { events: SourceEvent[]; result: { id: string } };

export function decideCreateSource(state: SourceState, cmd: CreateSource): Decision {
  if (state.exists) throw new ApiError('conflict', { source_id: cmd.sourceId });
  if (!cmd.organizationExists) throw new ApiError('not_found', { organization_id: cmd.organizationId }, 'unknown organisation');
  if (!(SOURCE_KINDS as readonly string[]).includes(cmd.kind)) throw validationError('kind', `one of ${SOURCE_KINDS.join(', ')}`);
  const name = cmd.name.trim();
  if (!isName(name)) throw validationError('name', `1-${MAX_NAME_CHARS} characters`);
  if (cmd.csvUrl !== null && cmd.kind !== 'spreadsheet') throw validationError('csv_url', 'only a spreadsheet source reads a CSV');
  if (cmd.csvUrl !== null && !/^https?:\/\/\S+$/.test(cmd.csvUrl)) throw validationError('csv_url', 'an http(s) URL');
  const { sourceId, organizationId, csvUrl, columns, platformFormId, platformPageId, now } = cmd;
  return {
    events: [{
      type: 'SourceCreated',
      data: { sourceId, organizationId, kind: cmd.kind as SourceKind, name, csvUrl, columns, platformFormId, platformPageId, createdAt: now },
    }],
    result: { id: sourceId },
  };
}

export function decidePauseSource(state: SourceState, cmd: { sourceId: string; now: string }): Decision {
  if (!state.exists || !state.organizationId) throw new ApiError('not_found', { source_id: cmd.sourceId }, 'unknown source');
  if (state.paused) return { events: [], result: { id: cmd.sourceId } };
  return { events: [{ type: 'SourcePaused', data: { sourceId: cmd.sourceId, organizationId: state.organizationId, pausedAt: cmd.now } }], result: { id: cmd.sourceId } };
}

export function decideResumeSource(state: SourceState, cmd: { sourceId: string; now: string }): Decision {
  if (!state.exists || !state.organizationId) throw new ApiError('not_found', { source_id: cmd.sourceId }, 'unknown source');
  if (!state.paused) return { events: [], result: { id: cmd.sourceId } };
  return { events: [{ type: 'SourceResumed', data: { sourceId: cmd.sourceId, organizationId: state.organizationId, resumedAt: cmd.now } }], result: { id: cmd.sourceId } };
}

/** A form source without a page takes the one a lead names; a page it knows already is kept (a form lives on one page). */
export function decideLearnPage(state: SourceState, cmd: { sourceId: string; platformPageId: string; now: string }): SourceEvent[] {
  if (!state.exists || !state.organizationId || state.kind !== 'form' || state.platformPageId !== null || cmd.platformPageId === '') return [];
  return [{ type: 'SourcePageLearned', data: { sourceId: cmd.sourceId, organizationId: state.organizationId, platformPageId: cmd.platformPageId, learnedAt: cmd.now } }];
}

/**
 * A form source named by its platform form id, for want of a name when its first lead came (an export item without
 * form_name, a form the platform would not show), takes the name a later lead gives; a name it has is kept. Without
 * this the form kept its id as its name for good, and every later lead that names no form showed the id.
 */
export function decideLearnName(state: SourceState, cmd: { sourceId: string; platformFormId: string; formName: string; now: string }): SourceEvent[] {
  const name = firstChars(cmd.formName.trim(), MAX_NAME_CHARS);
  if (!state.exists || !state.organizationId || state.kind !== 'form' || state.name !== cmd.platformFormId || name === '' || name === state.name) return [];
  return [{ type: 'SourceNameLearned', data: { sourceId: cmd.sourceId, organizationId: state.organizationId, name, learnedAt: cmd.now } }];
}

// Read model of the conversion setup: sources, targets (dataset connections) and flows.
import { migrationsIn } from '../../src/db/migrate.ts';
import { applyEach, type Projector } from '../../src/projections/projector.ts';
import type { SourceEvent } from '../../commands/source/source.ts';
import type { TargetEvent } from '../../commands/target/target.ts';
import type { FlowEvent } from '../../commands/flow/flow.ts';

type Data<E extends { type: string; data: unknown }, T extends E['type']> = Extract<E, { type: T }>['data'];

export const setupProjector: Projector = {
  name: 'setup',
  tables: ['sources', 'targets', 'flows'],
  migrations: migrationsIn(import.meta.dirname),
  handles: ['SourceCreated', 'SourcePaused', 'SourceResumed', 'SourcePageLearned', 'SourceNameLearned', 'TargetCreated', 'FlowCreated', 'FlowDeactivated', 'FlowActivated'],
  apply: applyEach({
    SourceCreated: async (tx, e) => {
      const d = e.data as Data<SourceEvent, 'SourceCreated'>;
      await tx.query(
        `INSERT INTO sources (id, organization_id, kind, name, csv_url, columns, platform_form_id, platform_page_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) ON CONFLICT (id) DO NOTHING`,
        [d.sourceId, d.organizationId, d.kind, d.name, d.csvUrl, d.columns === null ? null : JSON.stringify(d.columns), d.platformFormId, d.platformPageId, d.createdAt],
      );
    },
    SourcePaused: async (tx, e) => {
      const d = e.data as Data<SourceEvent, 'SourcePaused'>;
      await tx.query('UPDATE sources SET paused = true, updated_at = $3 WHERE id = $1 AND organization_id = $2', [d.sourceId, d.organizationId, d.pausedAt]);
    },
    SourceResumed: async (tx, e) => {
      const d = e.data as Data<SourceEvent, 'SourceResumed'>;
      await tx.query('UPDATE sources SET paused = false, updated_at = $3 WHERE id = $1 AND organization_id = $2', [d.sourceId, d.organizationId, d.resumedAt]);
    },
    SourcePageLearned: async (tx, e) => {
      const d = e.data as Data<SourceEvent, 'SourcePageLearned'>;
      await tx.query('UPDATE sources SET platform_page_id = $3, updated_at = $4 WHERE id = $1 AND organization_id = $2 AND platform_page_id IS NULL', [d.sourceId, d.organizationId, d.platformPageId, d.learnedAt]);
    },
    SourceNameLearned: async (tx, e) => {
      const d = e.data as Data<SourceEvent, 'SourceNameLearned'>;
      await tx.query('UPDATE sources SET name = $3, updated_at = $4 WHERE id = $1 AND organization_id = $2', [d.sourceId, d.organizationId, d.name, d.learnedAt]);
    },
    TargetCreated: async (tx, e) => {
      const d = e.data as Data<TargetEvent, 'TargetCreated'>;
      await tx.query(
        `INSERT INTO targets (id, organization_id, dataset_id, token_ciphertext, mode, test_code, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
        [d.targetId, d.organizationId, d.datasetId, d.tokenCiphertext, d.mode, d.testCode, d.createdAt],
      );
    },
    FlowCreated: async (tx, e) => {
      const d = e.data as Data<FlowEvent, 'FlowCreated'>;
      const value = d.trigger.kind === 'status' ? d.trigger.status : d.trigger.stage;
      await tx.query(
        `INSERT INTO flows (id, organization_id, source_id, target_id, event_name, trigger_kind, trigger_value, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ON CONFLICT (id) DO NOTHING`,
        [d.flowId, d.organizationId, d.sourceId, d.targetId, d.eventName, d.trigger.kind, value, d.createdAt],
      );
    },
    FlowDeactivated: async (tx, e) => {
      const d = e.data as Data<FlowEvent, 'FlowDeactivated'>;
      await tx.query('UPDATE flows SET active = false, updated_at = $3 WHERE id = $1 AND organization_id = $2', [d.flowId, d.organizationId, d.deactivatedAt]);
    },
    FlowActivated: async (tx, e) => {
      const d = e.data as Data<FlowEvent, 'FlowActivated'>;
      await tx.query('UPDATE flows SET active = true, updated_at = $3 WHERE id = $1 AND organization_id = $2', [d.flowId, d.organizationId, d.activatedAt]);
    },
  }),
};

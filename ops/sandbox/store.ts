// The sandbox's whole in-memory state and the control surface tests use in-process (the HTTP control mirrors it).
import { accountKey, Catalog, type StoredAccount } from './catalog.ts';
import { DatasetLedger } from './datasets.ts';
import { InsightsBook } from './insights-book.ts';
import type {
  AdAccountSeed,
  AdSeed,
  CreativeSeed,
  DatasetBehaviour,
  DatasetReceipt,
  FailureInjection,
  FormSeed,
  GeneratedInsightsSummary,
  GenerateInsightsOptions,
  GraphLead,
  InsightSeed,
  LeadSeed,
  PageSeed,
} from './types.ts';

export interface SandboxOptions {
  /** Events kept with their content per dataset (counts are kept past it). Default 20,000. */
  maxRecordedEvents?: number;
  /** Batches kept per dataset. Default 2,000. */
  maxRecordedBatches?: number;
  /** Days x ads above which an insights request gets the "reduce the amount of data" error. Default 10,000. */
  insightsCellLimit?: number;
}

export class SandboxStore {
  readonly ledger: DatasetLedger;
  readonly catalog = new Catalog();
  readonly insights = new InsightsBook();
  insightsCellLimit: number;
  /** Requests seen per path, so tests can prove a client retried or paged. */
  readonly requestCounts = new Map<string, number>();
  private failures: FailureInjection[] = [];
  private readonly defaultCellLimit: number;

  constructor(opts: SandboxOptions = {}) {
    this.ledger = new DatasetLedger({ maxEvents: opts.maxRecordedEvents ?? 20_000, maxBatches: opts.maxRecordedBatches ?? 2_000 });
    this.defaultCellLimit = opts.insightsCellLimit ?? 10_000;
    this.insightsCellLimit = this.defaultCellLimit;
  }

  setDatasetBehaviour(datasetId: string, behaviour: DatasetBehaviour): void {
    this.ledger.setBehaviour(datasetId, behaviour);
  }

  received(datasetId: string): DatasetReceipt {
    return this.ledger.received(datasetId);
  }

  seedPage(page: PageSeed): void {
    this.catalog.seedPage(page);
  }

  seedForm(form: FormSeed): void {
    this.catalog.seedForm(form);
  }

  seedLead(lead: LeadSeed): GraphLead {
    return this.catalog.seedLead(lead);
  }

  seedAdAccount(account: AdAccountSeed): StoredAccount {
    return this.catalog.seedAdAccount(account);
  }

  seedInsights(account: string, rows: InsightSeed[]): void {
    this.ensureAccount(account);
    this.insights.seed(accountKey(account), rows);
  }

  generateInsights(account: string, opts: GenerateInsightsOptions): GeneratedInsightsSummary {
    this.ensureAccount(account);
    return this.insights.generate(accountKey(account), opts);
  }

  setInsightsCellLimit(cells: number): void {
    this.insightsCellLimit = cells;
  }

  seedAd(ad: AdSeed): void {
    this.catalog.seedAd(ad);
  }

  seedCreative(creative: CreativeSeed): void {
    this.catalog.seedCreative(creative);
  }

  seedSheet(name: string, csv: string): void {
    this.catalog.seedSheet(name, csv);
  }

  injectFailures(failure: FailureInjection): void {
    this.failures.push({ ...failure });
  }

  /** Takes one injected failure matching the path, if any is left. */
  takeFailure(path: string): FailureInjection | null {
    const found = this.failures.find((f) => f.count > 0 && path.includes(f.match));
    if (!found) return null;
    if (found.skip) {
      found.skip -= 1;
      return null;
    }
    found.count -= 1;
    this.failures = this.failures.filter((f) => f.count > 0);
    return found;
  }

  countRequest(path: string): void {
    this.requestCounts.set(path, (this.requestCounts.get(path) ?? 0) + 1);
  }

  /** Requests whose path contains `match`. */
  requestsTo(match: string): number {
    let n = 0;
    for (const [path, count] of this.requestCounts) if (path.includes(match)) n += count;
    return n;
  }

  reset(): void {
    this.ledger.reset();
    this.catalog.reset();
    this.insights.reset();
    this.failures = [];
    this.requestCounts.clear();
    this.insightsCellLimit = this.defaultCellLimit;
  }

  private ensureAccount(account: string): void {
    if (!this.catalog.accounts.has(accountKey(account))) this.catalog.seedAdAccount({ id: account });
  }
}

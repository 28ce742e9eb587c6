// Shared by the platform tests: a sandbox per suite, a client config pointing at it, and event builders.
import type { ServerEvent } from '../../src/platform/conversions.ts';
import type { PlatformConfig } from '../../src/platform/graph.ts';
import { sha256Hex } from '../../src/platform/normalize.ts';
import { startSandbox, type Sandbox } from '../../ops/sandbox/server.ts';

export interface SandboxContext {
  sandbox: Sandbox;
  cfg: PlatformConfig;
}

export async function sandboxContext(ctx: Partial<SandboxContext>, opts: Parameters<typeof startSandbox>[0] = {}): Promise<void> {
  ctx.sandbox = await startSandbox(opts);
  ctx.cfg = { apiUrl: ctx.sandbox.url, apiVersion: 'v21.0', timeoutMs: 5_000 };
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function serverEvent(i: number, over: Partial<ServerEvent> = {}): ServerEvent {
  return {
    event_name: 'Lead',
    event_time: nowSeconds() - 60,
    event_id: `ev-${i}`,
    action_source: 'system_generated',
    user_data: { em: [sha256Hex(`person${i}@example.com`)], lead_id: `${1000 + i}` },
    ...over,
  };
}

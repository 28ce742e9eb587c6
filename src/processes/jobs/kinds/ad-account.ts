// The connected ad account that a spend or creative job works on, or a permanent failure saying why not.
import { loadAdAccount } from '../../../../commands/adaccount/handlers.ts';
import { scopeId } from '../../../../commands/job/kinds.ts';
import { JobError, type JobContext } from '../handler.ts';

export async function connectedAccount(ctx: JobContext): Promise<{ account: string; connected: NonNullable<Awaited<ReturnType<typeof loadAdAccount>>> }> {
  const account = scopeId(ctx.scope, 'account');
  if (!account) throw new JobError(`${ctx.kind} needs an account scope, not ${ctx.scope}`, true);
  const connected = await loadAdAccount(ctx.services, ctx.organizationId, account);
  if (!connected) throw new JobError(`ad account ${account} is not connected to this organisation`, true);
  return { account, connected };
}

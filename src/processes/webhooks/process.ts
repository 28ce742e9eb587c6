// Registers the webhook sender with the service's process managers.
import type { ProcessManager } from '../process.ts';
import { WebhookSender, webhookSenderOptions } from './worker.ts';

export const webhookProcess: ProcessManager = {
  name: 'webhooks',
  start(services) {
    const sender = new WebhookSender(services, webhookSenderOptions(services)).start();
    return { stop: () => sender.stop() };
  },
};

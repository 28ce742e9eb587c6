// Lead test fixtures: platform leads as the export and GET /{lead_id} give them, imported through the intake.
import { leadFromGraph, type PlatformLead } from '../../src/platform/leads.ts';
import { receiveLead } from '../../commands/lead/intake.ts';
import type { TestOrg, TestServer } from '../support/server.ts';

export interface LeadSpec {
  id: string;
  formId?: string;
  formName?: string;
  email?: string;
  phone?: string;
  name?: string;
  created?: string;
  campaign?: string;
  adset?: string;
  ad?: string;
  budget?: string;
}

export function platformLead(spec: LeadSpec): PlatformLead {
  const field = (name: string, value: string | undefined) => (value === undefined ? [] : [{ name, values: [value] }]);
  return leadFromGraph({
    id: spec.id,
    created_time: spec.created ?? '2025-03-01T10:00:00+0000',
    form_id: spec.formId ?? 'form-1',
    form_name: spec.formName ?? 'Spring offer',
    page_id: 'page-1',
    platform: 'ig',
    ...(spec.ad ? { ad_id: spec.ad, ad_name: `Ad ${spec.ad}`, adset_id: spec.adset ?? 'as-1', adset_name: 'Adset', campaign_id: spec.campaign ?? 'c-1', campaign_name: 'Campaign' } : {}),
    field_data: [...field('full_name', spec.name), ...field('email', spec.email), ...field('phone_number', spec.phone), ...field('budget', spec.budget)],
  });
}

/** Through the same intake as the webhook fetch and the CLI import; then the read models are up to date. */
export async function importLead(server: TestServer, org: TestOrg, spec: LeadSpec) {
  const received = await receiveLead(server.services, { organizationId: org.organizationId, lead: platformLead(spec), via: 'import' }, { organizationId: org.organizationId, actor: 'test' });
  await server.settle();
  return received;
}

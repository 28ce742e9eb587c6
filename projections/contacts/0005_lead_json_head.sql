-- Leads keep their JSON without the closing brace (api_json_head): an item is then head || '}', or with
-- answers head || ',"answers":' || answers_json || '}'. Cutting the brace off a full text at read time
-- (left, substr) counts characters and cost more than the rest of a page.
CREATE OR REPLACE FUNCTION public.lead_api_json_head(
  id text, platform_lead_id text, source_id text, form_name text, platform_form_id text, platform_page_id text, stage text,
  cycle integer, contact_id text, fetch_status text, ad jsonb, stages jsonb, submitted_at timestamptz, updated_at timestamptz
) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN '{"id":' || public.api_json_text(id) || ',"platform_lead_id":' || public.api_json_text(platform_lead_id)
    || ',"form_id":' || public.api_json_text(COALESCE(source_id, '')) || ',"form_name":' || public.api_json_text(form_name)
    || ',"platform_form_id":' || public.api_json_text(platform_form_id) || ',"platform_page_id":' || public.api_json_text(platform_page_id)
    || ',"stage":' || public.api_json_text(stage) || ',"cycle":' || cycle::text
    || ',"contact_id":' || public.api_json_text(contact_id) || ',"fetch_status":' || public.api_json_text(fetch_status)
    || ',"ad":' || COALESCE(ad::text, 'null') || ',"stages":' || stages::text
    || ',"created_at":' || public.api_json_time(submitted_at) || ',"updated_at":' || public.api_json_time(updated_at);

ALTER TABLE leads DROP COLUMN IF EXISTS api_json;
DROP FUNCTION IF EXISTS public.lead_api_json(text, text, text, text, text, text, text, integer, text, text, jsonb, jsonb, timestamptz, timestamptz);
ALTER TABLE leads ADD COLUMN IF NOT EXISTS api_json_head text GENERATED ALWAYS AS (public.lead_api_json_head(
  id, platform_lead_id, source_id, form_name, platform_form_id, platform_page_id, stage, cycle, contact_id, fetch_status, ad, stages,
  submitted_at, updated_at)) STORED;

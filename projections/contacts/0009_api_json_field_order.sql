-- The objects inside a contact's and a lead's JSON in the field order the specification lists: an AdSource
-- (first_ad, ad) as platform, campaign_id, campaign_name, adset_id, adset_name, ad_id, ad_name, and a lead's
-- stages items as stage, at, platform_event_queued. 0004 and 0005 wrote jsonb's own text, which puts keys
-- shortest first ({"ad_id": ..., "ad_name": ..., "adset_id": ...}), unlike the resources and the webhook pushes.
-- Functions of their own rather than 0004's and 0005's replaced: a rebuild runs those files again, and the live
-- tables' columns must never meet the old versions.

CREATE OR REPLACE FUNCTION public.api_json_ad(ad jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN ad IS NULL OR jsonb_typeof(ad) <> 'object' THEN 'null' ELSE
    '{"platform":' || public.api_json_text(COALESCE(ad->>'platform', ''))
    || ',"campaign_id":' || public.api_json_text(COALESCE(ad->>'campaign_id', ''))
    || ',"campaign_name":' || public.api_json_text(COALESCE(ad->>'campaign_name', ''))
    || ',"adset_id":' || public.api_json_text(COALESCE(ad->>'adset_id', ''))
    || ',"adset_name":' || public.api_json_text(COALESCE(ad->>'adset_name', ''))
    || ',"ad_id":' || public.api_json_text(COALESCE(ad->>'ad_id', ''))
    || ',"ad_name":' || public.api_json_text(COALESCE(ad->>'ad_name', '')) || '}' END;

CREATE OR REPLACE FUNCTION public.api_json_stages(stages jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN '[' || COALESCE((
    SELECT string_agg('{"stage":' || public.api_json_text(s->>'stage') || ',"at":' || public.api_json_text(s->>'at')
      || ',"platform_event_queued":' || COALESCE(s->'platform_event_queued', 'false'::jsonb)::text || '}', ',' ORDER BY n)
    FROM jsonb_array_elements(stages) WITH ORDINALITY AS x(s, n)), '') || ']';

CREATE OR REPLACE FUNCTION public.contact_api_json_ordered(
  id text, name text, phone text, email text, stage text, cycle integer, tags text[], sms_optout boolean,
  first_source text, first_ad jsonb, owner_id text, last_activity_at timestamptz, created_at timestamptz, updated_at timestamptz
) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN '{"id":' || public.api_json_text(id) || ',"name":' || public.api_json_text(name)
    || ',"phone":' || public.api_json_text(phone) || ',"email":' || public.api_json_text(email)
    || ',"stage":' || public.api_json_text(stage) || ',"cycle":' || cycle::text
    || ',"tags":' || array_to_json(tags)::text || ',"sms_optout":' || CASE WHEN sms_optout THEN 'true' ELSE 'false' END
    || ',"first_source":' || public.api_json_text(first_source) || ',"first_ad":' || public.api_json_ad(first_ad)
    || ',"owner_id":' || public.api_json_text(owner_id) || ',"last_activity_at":' || public.api_json_time(last_activity_at)
    || ',"created_at":' || public.api_json_time(created_at) || ',"updated_at":' || public.api_json_time(updated_at) || '}';

CREATE OR REPLACE FUNCTION public.lead_api_json_head_ordered(
  id text, platform_lead_id text, source_id text, form_name text, platform_form_id text, platform_page_id text, stage text,
  cycle integer, contact_id text, fetch_status text, ad jsonb, stages jsonb, submitted_at timestamptz, updated_at timestamptz
) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN '{"id":' || public.api_json_text(id) || ',"platform_lead_id":' || public.api_json_text(platform_lead_id)
    || ',"form_id":' || public.api_json_text(COALESCE(source_id, '')) || ',"form_name":' || public.api_json_text(form_name)
    || ',"platform_form_id":' || public.api_json_text(platform_form_id) || ',"platform_page_id":' || public.api_json_text(platform_page_id)
    || ',"stage":' || public.api_json_text(stage) || ',"cycle":' || cycle::text
    || ',"contact_id":' || public.api_json_text(contact_id) || ',"fetch_status":' || public.api_json_text(fetch_status)
    || ',"ad":' || public.api_json_ad(ad) || ',"stages":' || public.api_json_stages(stages)
    || ',"created_at":' || public.api_json_time(submitted_at) || ',"updated_at":' || public.api_json_time(updated_at);

-- Rewrites both tables once (PostgreSQL 17 and newer); the list keys carry the contact's text, so they follow.
ALTER TABLE contacts ALTER COLUMN api_json SET EXPRESSION AS (public.contact_api_json_ordered(
  id, name, phone, email, stage, cycle, tags, sms_optout, first_source, first_ad, owner_id, last_activity_at, created_at, updated_at));
ALTER TABLE leads ALTER COLUMN api_json_head SET EXPRESSION AS (public.lead_api_json_head_ordered(
  id, platform_lead_id, source_id, form_name, platform_form_id, platform_page_id, stage, cycle, contact_id, fetch_status, ad, stages,
  submitted_at, updated_at));
UPDATE contact_list_keys k SET item = c.api_json FROM contacts c
  WHERE c.organization_id = k.organization_id AND c.id = k.id AND k.item IS DISTINCT FROM c.api_json;

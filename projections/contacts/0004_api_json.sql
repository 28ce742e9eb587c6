-- Each contact and lead also kept as the JSON text the API answers with (generated columns, so every write
-- path - projector, rebuild, bulk loads - keeps it in step): a list page is then 100 texts joined, where
-- parsing timestamps, arrays and jsonb into objects and serialising them again cost the most per request.
-- The functions live in public on purpose: a rebuild runs this file with its side schema first in the
-- search path and drops that schema after the swap, which would take generated columns with it.

-- ISO 8601 in UTC with milliseconds, as Date.prototype.toISOString writes it; null as JSON null.
-- IMMUTABLE holds: the format has no locale-dependent fields and the zone is fixed.
CREATE OR REPLACE FUNCTION public.api_json_time(t timestamptz) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN COALESCE('"' || to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null');

-- A JSON string (or null) for a text value.
CREATE OR REPLACE FUNCTION public.api_json_text(v text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN COALESCE(to_json(v)::text, 'null');

-- The Contact resource of the specification.
CREATE OR REPLACE FUNCTION public.contact_api_json(
  id text, name text, phone text, email text, stage text, cycle integer, tags text[], sms_optout boolean,
  first_source text, first_ad jsonb, owner_id text, last_activity_at timestamptz, created_at timestamptz, updated_at timestamptz
) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN '{"id":' || public.api_json_text(id) || ',"name":' || public.api_json_text(name)
    || ',"phone":' || public.api_json_text(phone) || ',"email":' || public.api_json_text(email)
    || ',"stage":' || public.api_json_text(stage) || ',"cycle":' || cycle::text
    || ',"tags":' || array_to_json(tags)::text || ',"sms_optout":' || CASE WHEN sms_optout THEN 'true' ELSE 'false' END
    || ',"first_source":' || public.api_json_text(first_source) || ',"first_ad":' || COALESCE(first_ad::text, 'null')
    || ',"owner_id":' || public.api_json_text(owner_id) || ',"last_activity_at":' || public.api_json_time(last_activity_at)
    || ',"created_at":' || public.api_json_time(created_at) || ',"updated_at":' || public.api_json_time(updated_at) || '}';

-- The Lead resource without answers (personal data behind leads:answers; the route adds them from
-- answers_json for keys that hold the scope). created_at is the submission time.
CREATE OR REPLACE FUNCTION public.lead_api_json(
  id text, platform_lead_id text, source_id text, form_name text, platform_form_id text, platform_page_id text, stage text,
  cycle integer, contact_id text, fetch_status text, ad jsonb, stages jsonb, submitted_at timestamptz, updated_at timestamptz
) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN '{"id":' || public.api_json_text(id) || ',"platform_lead_id":' || public.api_json_text(platform_lead_id)
    || ',"form_id":' || public.api_json_text(COALESCE(source_id, '')) || ',"form_name":' || public.api_json_text(form_name)
    || ',"platform_form_id":' || public.api_json_text(platform_form_id) || ',"platform_page_id":' || public.api_json_text(platform_page_id)
    || ',"stage":' || public.api_json_text(stage) || ',"cycle":' || cycle::text
    || ',"contact_id":' || public.api_json_text(contact_id) || ',"fetch_status":' || public.api_json_text(fetch_status)
    || ',"ad":' || COALESCE(ad::text, 'null') || ',"stages":' || stages::text
    || ',"created_at":' || public.api_json_time(submitted_at) || ',"updated_at":' || public.api_json_time(updated_at) || '}';

CREATE OR REPLACE FUNCTION public.api_json_jsonb(v jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN COALESCE(v::text, 'null');

ALTER TABLE contacts ADD COLUMN IF NOT EXISTS api_json text GENERATED ALWAYS AS (public.contact_api_json(
  id, name, phone, email, stage, cycle, tags, sms_optout, first_source, first_ad, owner_id, last_activity_at, created_at, updated_at)) STORED;

ALTER TABLE leads ADD COLUMN IF NOT EXISTS api_json text GENERATED ALWAYS AS (public.lead_api_json(
  id, platform_lead_id, source_id, form_name, platform_form_id, platform_page_id, stage, cycle, contact_id, fetch_status, ad, stages,
  submitted_at, updated_at)) STORED;
ALTER TABLE leads ADD COLUMN IF NOT EXISTS answers_json text GENERATED ALWAYS AS (public.api_json_jsonb(answers)) STORED;

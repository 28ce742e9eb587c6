-- The tag, campaign, ad set and ad filters of GET /contacts as a btree in list order: one row per live
-- contact and value, keyed like the list (updated_at, id), so that a page is a range scan of limit + 1
-- keys joined to contacts by primary key, whatever the value and however many contacts carry it. The
-- arrays' GIN indexes could only give every contact with the value (then sorted), or the list walked in
-- order and filtered; which was better depended on the value, so each request was planned anew.
CREATE TABLE IF NOT EXISTS contact_list_keys (
  organization_id text NOT NULL,
  -- tag, campaign, adset or ad
  kind text NOT NULL,
  value text NOT NULL,
  updated_at timestamptz NOT NULL,
  -- The contact's id, named as in contacts so that the list's keyset conditions read the same on both.
  id text NOT NULL,
  PRIMARY KEY (organization_id, kind, value, updated_at, id)
);

-- The keys of one contacts row; a merged card has none (lists leave it out).
CREATE OR REPLACE FUNCTION public.contact_list_key_values(merged_into text, tags text[], campaign_ids text[], adset_ids text[], ad_ids text[])
  RETURNS TABLE (kind text, value text) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT k.kind, k.value FROM (
    SELECT 'tag', unnest(tags) UNION ALL SELECT 'campaign', unnest(campaign_ids)
    UNION ALL SELECT 'adset', unnest(adset_ids) UNION ALL SELECT 'ad', unnest(ad_ids)
  ) AS k (kind, value)
  WHERE merged_into IS NULL
$$;

-- Kept in step by triggers rather than by each handler, as the JSON columns are by generation: every
-- write of contacts (projector, rebuild, bulk loads) moves its keys, one set-based statement per
-- statement. Contacts rows are never deleted (a rebuild drops the table, and its keys with it). The
-- function lives in public for the reason given in 0004; its table names resolve through the writer's
-- search_path, so a rebuild's replay writes the keys of its side schema.
CREATE OR REPLACE FUNCTION public.contact_list_keys_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM contact_list_keys k
    USING old_rows o CROSS JOIN LATERAL public.contact_list_key_values(o.merged_into, o.tags, o.campaign_ids, o.adset_ids, o.ad_ids) x
    WHERE k.organization_id = o.organization_id AND k.kind = x.kind AND k.value = x.value AND k.updated_at = o.updated_at AND k.id = o.id;
  END IF;
  INSERT INTO contact_list_keys (organization_id, kind, value, updated_at, id)
  SELECT n.organization_id, x.kind, x.value, n.updated_at, n.id
  FROM new_rows n CROSS JOIN LATERAL public.contact_list_key_values(n.merged_into, n.tags, n.campaign_ids, n.adset_ids, n.ad_ids) x
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER contact_list_keys_inserted AFTER INSERT ON contacts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.contact_list_keys_follow();
CREATE OR REPLACE TRIGGER contact_list_keys_updated AFTER UPDATE ON contacts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.contact_list_keys_follow();

INSERT INTO contact_list_keys (organization_id, kind, value, updated_at, id)
SELECT c.organization_id, x.kind, x.value, c.updated_at, c.id
FROM contacts c CROSS JOIN LATERAL public.contact_list_key_values(c.merged_into, c.tags, c.campaign_ids, c.adset_ids, c.ad_ids) x
ON CONFLICT DO NOTHING;

-- Nothing reads the arrays through GIN any more (a second array filter is checked on the joined row).
DROP INDEX IF EXISTS contacts_tags;
DROP INDEX IF EXISTS contacts_campaigns;
DROP INDEX IF EXISTS contacts_adsets;
DROP INDEX IF EXISTS contacts_ads;

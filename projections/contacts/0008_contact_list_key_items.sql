-- Each list key carries its contact's JSON text (contacts.api_json), so that a page by tag, campaign,
-- ad set or ad is read from the keys alone: 101 keys in list order, without 101 primary-key lookups of
-- contacts (index descents into random pages: 300 us of a 340 us page on the benchmark data, where the
-- unfiltered page costs 40 us). The price is the text kept once per key (about five per contact); the
-- trigger already rewrote every key of a contact on each of its changes, since updated_at is in the key.
ALTER TABLE contact_list_keys ADD COLUMN IF NOT EXISTS item text;
UPDATE contact_list_keys k SET item = c.api_json FROM contacts c
  WHERE c.organization_id = k.organization_id AND c.id = k.id AND k.item IS DISTINCT FROM c.api_json;
ALTER TABLE contact_list_keys ALTER COLUMN item SET NOT NULL;

-- As in 0006, with the item. A function of its own rather than 0006's replaced: a rebuild runs 0006 again
-- (outside a transaction), and the live table's triggers must never meet a version without the item.
CREATE OR REPLACE FUNCTION public.contact_list_keys_follow_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM contact_list_keys k
    USING old_rows o CROSS JOIN LATERAL public.contact_list_key_values(o.merged_into, o.tags, o.campaign_ids, o.adset_ids, o.ad_ids) x
    WHERE k.organization_id = o.organization_id AND k.kind = x.kind AND k.value = x.value AND k.updated_at = o.updated_at AND k.id = o.id;
  END IF;
  INSERT INTO contact_list_keys (organization_id, kind, value, updated_at, id, item)
  SELECT n.organization_id, x.kind, x.value, n.updated_at, n.id, n.api_json
  FROM new_rows n CROSS JOIN LATERAL public.contact_list_key_values(n.merged_into, n.tags, n.campaign_ids, n.adset_ids, n.ad_ids) x
  -- A conflict is only a value twice in one row's array (same key, same item): the row's old keys are gone.
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER contact_list_keys_inserted AFTER INSERT ON contacts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.contact_list_keys_follow_items();
CREATE OR REPLACE TRIGGER contact_list_keys_updated AFTER UPDATE ON contacts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.contact_list_keys_follow_items();

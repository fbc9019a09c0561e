-- step 59: Paddle Billing, the fourth store
-- An app selling on the web through Paddle keeps two secrets in `app_store_secrets` (store `paddle`), sealed at rest
-- like every other: the API key SubLedger reads Paddle's API with (`api_key`), and the endpoint secret key of the
-- notification setting Paddle posts its events to (`webhook_secret`). A notification is stored in `notifications` as
-- received (version `paddle_event`, its id `paddle:<evt id>`, so a redelivery or the same event found in the events
-- list finds the stored row) before the transaction or subscription it names is read back from Paddle and applied.
ALTER TABLE notifications DROP CONSTRAINT notifications_version_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_version_check
    CHECK (version IN ('v1', 'v2', 'google_rtdn', 'stripe_event', 'paddle_event'));

-- Each Paddle app's place in its events list (`GET /events`, which Paddle keeps 90 days) is kept with Stripe's, in
-- `store_event_cursors` (step 60).

-- An erasure keeps a Paddle order under the pseudonym as it keeps a Stripe one (step 56): SubLedger's checkout
-- writes the order's id into the Paddle transaction's `custom_data`, Paddle sends it back with every later reading of
-- the purchase, and it is what names the buyer. As in step 56, with the products of both web stores.
CREATE OR REPLACE FUNCTION account_erasure_rewrite_state(p_app_id bigint, p_ids text[], p_pseudonyms text[])
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_count bigint;
    v_summary jsonb;
    v_quoted text[] := ARRAY(SELECT '%' || to_json(id)::text || '%' FROM unnest(p_ids) id);
    -- An id as LIKE matches it anywhere (its own `%`, `_` and `\` escaped).
    v_anywhere text[] := ARRAY(
        SELECT '%' || replace(replace(replace(id, '\', '\\'), '%', '\%'), '_', '\_') || '%' FROM unnest(p_ids) id);
    v_chain_environments text[];
    v_chain_keys text[];
    v_accounts text[];
    v_i integer;
    -- The products the app sells through a web store (Stripe, Paddle), as its catalog states them.
    v_web_products text[] := ARRAY(
        SELECT p ->> 'product_id' FROM apps a, jsonb_array_elements(a.catalog -> 'products') p
        WHERE a.app_id = p_app_id AND p ->> 'store' IN ('stripe', 'paddle'));
    v_orders bigint;
BEGIN
    v_summary := jsonb_build_object('environments', to_jsonb(ARRAY(
        SELECT DISTINCT environment FROM chains WHERE app_id = p_app_id AND owner_account_id = ANY (p_ids)
        ORDER BY 1)));
    SELECT coalesce(array_agg(environment), '{}'), coalesce(array_agg(original_transaction_id), '{}')
    INTO v_chain_environments, v_chain_keys
    FROM (SELECT environment, original_transaction_id FROM chains
          WHERE app_id = p_app_id AND owner_account_id = ANY (p_ids)
          UNION
          SELECT environment, original_transaction_id FROM ownership_bindings
          WHERE app_id = p_app_id AND account_id = ANY (p_ids)
          UNION
          SELECT environment, original_transaction_id FROM ownership_bindings
          WHERE app_id = p_app_id AND from_account_id = ANY (p_ids)) k;
    -- Each chain by its key (one shard on a Citus cluster), with the accounts bound to it: their events are the
    -- others that may name an id (an ownership transfer's).
    v_accounts := p_ids;
    v_count := 0;
    FOR v_i IN 1 .. cardinality(v_chain_keys) LOOP
        v_accounts := v_accounts || ARRAY(
            SELECT b.account_id FROM ownership_bindings b
            WHERE b.app_id = p_app_id AND b.environment = v_chain_environments[v_i]
              AND b.original_transaction_id = v_chain_keys[v_i] AND b.account_id IS NOT NULL);
        UPDATE chains SET owner_account_id = account_erasure_pseudonym(owner_account_id, p_ids, p_pseudonyms),
            snapshot = account_erasure_rewrite(account_erasure_strip(snapshot)::text, p_ids, p_pseudonyms)::jsonb
        WHERE app_id = p_app_id AND environment = v_chain_environments[v_i]
          AND original_transaction_id = v_chain_keys[v_i];
        v_count := v_count + 1;
    END LOOP;
    v_summary := v_summary || jsonb_build_object('chains', v_count);
    -- The ids merged into those accounts: a merge moves what an account holds, not the events it was sent.
    v_accounts := v_accounts || ARRAY(
        SELECT account_id FROM account_aliases WHERE app_id = p_app_id AND merged_into = ANY (v_accounts));
    UPDATE ownership_bindings SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms),
        from_account_id = account_erasure_pseudonym(from_account_id, p_ids, p_pseudonyms)
    WHERE app_id = p_app_id AND (account_id = ANY (p_ids) OR from_account_id = ANY (p_ids));
    UPDATE transactions SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms),
        app_account_token = NULL,
        payload = account_erasure_rewrite(account_erasure_strip(payload)::text, p_ids, p_pseudonyms)::jsonb
    WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_summary := v_summary || jsonb_build_object('transactions', v_count);
    DELETE FROM account_tokens WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_summary := v_summary || jsonb_build_object('app_account_tokens', v_count);
    -- The orders: a web store's order is kept, under the erased account's pseudonym (an id merged into it was that
    -- account's too); every other order is removed.
    UPDATE orders SET account_id = p_pseudonyms[1]
    WHERE app_id = p_app_id AND account_id = ANY (p_ids) AND product_id = ANY (v_web_products);
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_orders := v_count;
    DELETE FROM orders WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_summary := v_summary || jsonb_build_object('orders', v_orders + v_count);
    UPDATE store_obligations SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms)
    WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    UPDATE app_transaction_claims SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms)
    WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    -- An import run names no app (its rows' transactions do): the rows of every run that name the ids.
    UPDATE import_rows SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms)
    WHERE account_id = ANY (p_ids);
    -- Webhook events, delivered or not (those not delivered yet go out with the pseudonym): account, key, body.
    UPDATE webhook_events SET account_id = account_erasure_pseudonym(account_id, p_ids, p_pseudonyms),
        idempotency_key = account_erasure_rewrite(idempotency_key, p_ids, p_pseudonyms),
        cause_id = account_erasure_rewrite(cause_id, p_ids, p_pseudonyms),
        body = account_erasure_rewrite(body, p_ids, p_pseudonyms)
    WHERE app_id = p_app_id AND account_id = ANY (v_accounts)
      AND (account_id = ANY (p_ids) OR body LIKE ANY (v_quoted) OR idempotency_key LIKE ANY (v_anywhere)
           OR cause_id LIKE ANY (v_anywhere));
    GET DIAGNOSTICS v_count = ROW_COUNT;
    v_summary := v_summary || jsonb_build_object('webhook_events', v_count);
    UPDATE consumption_request_attempts
    SET body = account_erasure_rewrite(body::text, p_ids, p_pseudonyms)::jsonb
    WHERE body IS NOT NULL AND body::text LIKE ANY (v_quoted);
    UPDATE audit_log SET target = account_erasure_rewrite(target::text, p_ids, p_pseudonyms)::jsonb
    WHERE target::text LIKE ANY (v_quoted);

    -- The tables distributed by account_id: the accounts' rows first (the consumption reports reference them).
    INSERT INTO accounts (app_id, account_id) SELECT p_app_id, unnest(p_pseudonyms) ON CONFLICT DO NOTHING;
    PERFORM account_erasure_move('consumption_consents', p_app_id, p_ids, p_pseudonyms);
    PERFORM account_erasure_move('consumption_usage_reports', p_app_id, p_ids, p_pseudonyms);
    v_summary := v_summary || jsonb_build_object(
        'grants', account_erasure_move('entitlement_grants', p_app_id, p_ids, p_pseudonyms));
    PERFORM account_erasure_move('account_credit_entries', p_app_id, p_ids, p_pseudonyms);
    PERFORM account_erasure_move('account_entitlement_periods', p_app_id, p_ids, p_pseudonyms);
    PERFORM account_erasure_move('account_entitlement_backfill', p_app_id, p_ids, p_pseudonyms);
    PERFORM account_erasure_move('webhook_account_sequences', p_app_id, p_ids, p_pseudonyms);
    DELETE FROM accounts WHERE app_id = p_app_id AND account_id = ANY (p_ids);
    RETURN v_summary;
END
$$;

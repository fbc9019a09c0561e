-- step 56: account erasures keep the Stripe orders, under the pseudonym
-- Until this step an erasure removed every order of the account. A Stripe order does not only wait for a purchase:
-- SubLedger's checkout writes its id into the metadata of the Checkout Session and of the subscription or payment
-- intent it creates, Stripe sends it back with every later reading of that purchase, and it is what names the buyer.
-- With the order removed, the id named nobody: a renewal paid after the erasure could wait unclaimed, and the buyer's
-- Checkout Session, submitted by another account (`POST /v1/purchases/stripe`), was that account's claim under the
-- ownership rule, so a subscription that was not renewing went to whoever submitted it. A Checkout Session is one
-- purchase, its buyer's; submitting it again is no new purchase, before the erasure or after.
--
-- From this step an erasure keeps the account's Stripe orders (of a product the app's catalog sells through Stripe),
-- their `account_id` rewritten to the erased account's pseudonym, as the chains they bought are: the order still names
-- the holder of its purchase, whoever submits the session, and everything Stripe later says about it goes to the
-- pseudonym. The other orders are removed as before: an App Store or Google Play order's id is the token the app gave
-- the store (`appAccountToken`, the obfuscated account id), an identifier of the customer that the erasure promises
-- to remove, and a token the app could give a new purchase, which must not go to the pseudonym. The summary's
-- `orders` counts both, the orders rewritten and the orders removed. `orders` stays on the coordinator (a Citus
-- coordinator table, not distributed by `account_id`), and no foreign key names its `account_id`.

-- As in step 55, but the account's Stripe orders are kept under the pseudonym.
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
    -- The products the app sells through Stripe, as its catalog states them.
    v_stripe_products text[] := ARRAY(
        SELECT p ->> 'product_id' FROM apps a, jsonb_array_elements(a.catalog -> 'products') p
        WHERE a.app_id = p_app_id AND p ->> 'store' = 'stripe');
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
    -- The orders: a Stripe order is kept, under the erased account's pseudonym (an id merged into it was that
    -- account's too); every other order is removed.
    UPDATE orders SET account_id = p_pseudonyms[1]
    WHERE app_id = p_app_id AND account_id = ANY (p_ids) AND product_id = ANY (v_stripe_products);
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

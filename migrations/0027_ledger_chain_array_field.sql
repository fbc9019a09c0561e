-- step 27: ledger chain: a text array field encoded by a loop, not by a subquery per row
-- The chain's encoding of a `text[]` field (step 24: a 4-byte big-endian element count, then each element as a
-- field, all of it as one field) was a SQL function with a subquery (`unnest … string_agg`), which PostgreSQL runs
-- as a subplan for every ledger entry hashed: about three quarters of the time an apply spent on its links. The
-- same bytes, written by a loop.
CREATE OR REPLACE FUNCTION ledger_chain_field(v text[]) RETURNS bytea LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
    v_inner bytea;
    v_element text;
BEGIN
    IF v IS NULL THEN
        RETURN '\xffffffff'::bytea;
    END IF;
    v_inner := int4send(cardinality(v));
    FOREACH v_element IN ARRAY v LOOP
        IF v_element IS NULL THEN
            v_inner := v_inner || '\xffffffff'::bytea;
        ELSE
            v_inner := v_inner || int4send(length(convert_to(v_element, 'UTF8'))) || convert_to(v_element, 'UTF8');
        END IF;
    END LOOP;
    RETURN int4send(length(v_inner)) || v_inner;
END
$$;

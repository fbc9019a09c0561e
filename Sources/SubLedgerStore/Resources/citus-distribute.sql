-- Places SubLedger's tables on a Citus cluster as each table's comment says (`subledger migrate --distribute`
-- runs this after the schema steps; docs/guides/scale-out.md, "Distributing with Citus"):
--
--   'citus: reference'                      create_reference_table (a copy on every node)
--   'citus: distributed by COLUMN'          create_distributed_table by COLUMN; the tables of one COLUMN
--                                           form one colocation group of their own
--   'citus: coordinator'                    left on the coordinator (Citus makes a table with a foreign key to a
--                                           reference table a Citus local table by itself)
--
-- Then every function of the schema is propagated to the workers (create_distributed_function), so that a
-- statement Citus routes to a worker can call it there.
--
-- It runs in one transaction: a failure changes nothing. It reads the comments when it runs, so a table added
-- later follows its comment, and it is idempotent: a table already placed as its comment says is left alone,
-- and a second run changes nothing. It refuses (and changes nothing) when the citus extension is absent, when
-- the coordinator is not in Citus's metadata, when a table has no 'citus: …' comment or an unknown one, or when
-- a table is already placed otherwise than its comment says. Order: the reference tables first, then each
-- family, its tables in foreign-key order (a table after the tables it references), the first with a
-- colocation group of its own and the rest colocated with it. Shards per distributed table: the session's
-- citus.shard_count (Citus's default 32; `--shard-count`). The tables of the schema first on the search path
-- (current_schema()) are placed.
DO $distribute$
DECLARE
    unclassified text;
    misplaced text;
    -- The work, in order: (table, 'reference' | 'distributed', column, colocate_with).
    -- Names, not oids: Citus replaces a table it converts (to a Citus local table, the shell of its shard).
    plan_tables text[] := '{}';
    plan_kinds text[] := '{}';
    plan_columns text[] := '{}';
    plan_colocate text[] := '{}';
    remaining regclass[];
    ready regclass[];
    family_column text;
    anchor regclass;
    t regclass;
    i int;
    j int;
    -- Every table's comment, put back after each step.
    comment_tables text[];
    comment_texts text[];
    -- The foreign keys of the tables to distribute, dropped until the tables are placed, as statements adding them.
    family_keys text[] := '{}';
    key record;
    statement text;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'the citus extension is not installed in database "%"',
            current_database()
            USING HINT = 'Run it on a Citus coordinator: CREATE EXTENSION citus on every node, then '
                || 'citus_set_coordinator_host and citus_add_node (scripts/citus-cluster start DIR does all of it).';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_dist_node WHERE groupid = 0) THEN
        RAISE EXCEPTION 'the coordinator is not in Citus''s metadata'
            USING HINT = 'SELECT citus_set_coordinator_host(''HOST'', PORT) on the coordinator first: its tables '
                || 'with a foreign key to a reference table become Citus local tables.';
    END IF;

    -- Citus hides the shards of the coordinator's tables from catalog queries; this script must see them.
    PERFORM set_config('citus.show_shards_for_app_name_prefixes', '*', true);

    -- Every ordinary or partitioned table of the schema (not a partition) with its placement.
    CREATE TEMPORARY TABLE IF NOT EXISTS citus_distribute_placements (
        relation regclass PRIMARY KEY, kind text, dist_column text, comment text);
    TRUNCATE citus_distribute_placements;
    INSERT INTO citus_distribute_placements
    SELECT c.oid::regclass,
           CASE WHEN m[1] = 'reference' THEN 'reference'
                WHEN m[1] = 'coordinator' THEN 'coordinator'
                WHEN m[2] IS NOT NULL THEN 'distributed' END,
           m[2],
           d.description
    FROM pg_class c
    LEFT JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
    LEFT JOIN LATERAL (
        SELECT regexp_match(d.description, '^citus: (reference|coordinator|distributed by ([a-z_][a-z0-9_]*))\M')
    ) AS r(m) ON true
    WHERE c.relnamespace = current_schema()::regnamespace
      AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND NOT relation_is_a_known_shard(c.oid);

    SELECT string_agg(format('%s (%s)', relation, coalesce(quote_literal(comment), 'no comment')), ', '
                      ORDER BY relation::text)
    INTO unclassified FROM citus_distribute_placements WHERE kind IS NULL;
    IF unclassified IS NOT NULL THEN
        RAISE EXCEPTION 'tables without a ''citus: …'' comment: %', unclassified
            USING HINT = 'COMMENT ON TABLE t IS ''citus: distributed by original_transaction_id'' | '
                || '''citus: distributed by account_id'' | ''citus: reference'' | ''citus: coordinator''.';
    END IF;
    SELECT string_agg(format('%s has no column %s', p.relation, p.dist_column), ', ')
    INTO misplaced FROM citus_distribute_placements p
    WHERE p.kind = 'distributed'
      AND NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = p.relation AND a.attname = p.dist_column
                      AND a.attnum > 0 AND NOT a.attisdropped);
    IF misplaced IS NOT NULL THEN
        RAISE EXCEPTION '%', misplaced;
    END IF;

    -- Tables Citus already holds otherwise than their comment says: refused (undistribute_table first). A Citus
    -- local table is not placed yet: Citus makes every table with a foreign key to a reference table one (with
    -- the tables its foreign keys connect it to), and create_distributed_table and create_reference_table
    -- take it from there.
    SELECT string_agg(format('%s is %s', p.relation,
               CASE WHEN d.partmethod = 'h' THEN 'distributed by '
                        || column_to_column_name(d.logicalrelid, d.partkey)
                    WHEN d.repmodel = 't' THEN 'a reference table'
                    ELSE 'a Citus local table' END), ', ' ORDER BY p.relation::text)
    INTO misplaced
    FROM citus_distribute_placements p JOIN pg_dist_partition d ON d.logicalrelid = p.relation
    WHERE NOT CASE p.kind
        WHEN 'reference' THEN d.partmethod = 'n' AND d.repmodel = 't'
        WHEN 'distributed' THEN d.partmethod = 'h' AND column_to_column_name(d.logicalrelid, d.partkey) = p.dist_column
        ELSE d.partmethod = 'n' AND d.repmodel <> 't' END
      AND NOT (d.partmethod = 'n' AND d.repmodel <> 't');
    IF misplaced IS NOT NULL THEN
        RAISE EXCEPTION 'placed otherwise than their comment says: %', misplaced;
    END IF;

    -- The plan. Each group is put in foreign-key order: a table comes after the tables of its group it
    -- references; among the tables that are ready, the most referenced first, then by name.
    FOR family_column IN
        SELECT NULL UNION ALL
        (SELECT DISTINCT dist_column FROM citus_distribute_placements WHERE kind = 'distributed' ORDER BY 1)
    LOOP
        remaining := ARRAY(SELECT relation FROM citus_distribute_placements
                           WHERE kind = CASE WHEN family_column IS NULL THEN 'reference' ELSE 'distributed' END
                             AND dist_column IS NOT DISTINCT FROM family_column);
        -- The family's anchor: a table of it Citus already distributed (an earlier run), else the first.
        anchor := (SELECT d.logicalrelid FROM pg_dist_partition d
                   WHERE family_column IS NOT NULL AND d.partmethod = 'h' AND d.logicalrelid = ANY (remaining)
                   ORDER BY d.colocationid, d.logicalrelid::text LIMIT 1);
        WHILE cardinality(remaining) > 0 LOOP
            ready := ARRAY(
                SELECT x FROM unnest(remaining) AS x
                WHERE NOT EXISTS (SELECT FROM pg_constraint f
                                  WHERE f.contype = 'f' AND f.conrelid = x AND f.confrelid <> x
                                    AND f.confrelid = ANY (remaining))
                ORDER BY (SELECT count(*) FROM pg_constraint f
                          WHERE f.contype = 'f' AND f.confrelid = x AND f.conrelid <> x) DESC, x::text);
            IF cardinality(ready) = 0 THEN
                RAISE EXCEPTION 'the foreign keys among % form a cycle', remaining;
            END IF;
            FOREACH t IN ARRAY ready LOOP
                IF family_column IS NOT NULL AND anchor IS NULL THEN
                    anchor := t;
                END IF;
                plan_tables := plan_tables || format('%I.%I', current_schema(), (SELECT relname FROM pg_class WHERE oid = t));
                plan_kinds := plan_kinds || CASE WHEN family_column IS NULL THEN 'reference' ELSE 'distributed' END;
                plan_columns := plan_columns || family_column;
                plan_colocate := plan_colocate || CASE WHEN t = anchor THEN 'none' ELSE anchor::text END;
            END LOOP;
            remaining := ARRAY(SELECT x FROM unnest(remaining) AS x WHERE x <> ALL (ready));
        END LOOP;
    END LOOP;
    comment_tables := ARRAY(SELECT format('%I.%I', current_schema(), c.relname)
                            FROM citus_distribute_placements p JOIN pg_class c ON c.oid = p.relation
                            ORDER BY 1);
    comment_texts := ARRAY(SELECT p.comment
                           FROM citus_distribute_placements p JOIN pg_class c ON c.oid = p.relation
                           ORDER BY format('%I.%I', current_schema(), c.relname));
    DROP TABLE citus_distribute_placements;

    -- All in this one transaction: a failure leaves the database as it was. Sequential mode: Citus refuses
    -- a foreign key to, or a write to, a table that a parallel operation of the same transaction created.
    PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    -- Citus distributes a table with triggers only with citus.enable_unsafe_triggers: each trigger then fires
    -- on the shards, on the worker holding the row, so it must touch no other table. SubLedger's triggers on
    -- distributed tables only refuse an UPDATE, DELETE or TRUNCATE (append-only tables).
    PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
    FOR key IN
        SELECT g.tgrelid::regclass AS relation, g.tgname, g.tgfoid::regproc AS function
        FROM pg_trigger g JOIN unnest(plan_tables, plan_kinds) AS p(relation, kind) ON p.relation::regclass = g.tgrelid
        WHERE NOT g.tgisinternal AND p.kind = 'distributed'
          AND NOT EXISTS (SELECT FROM pg_dist_partition d WHERE d.logicalrelid = g.tgrelid AND d.partmethod = 'h')
        ORDER BY 1, 2
    LOOP
        RAISE NOTICE 'trigger % of % (%) will fire on the shards', key.tgname, key.relation,
            key.function;
    END LOOP;

    -- The foreign keys of the tables to distribute are dropped first, while every table is plain, and added
    -- back at the end. Else a reference table makes every table with a foreign key to it a Citus local table,
    -- and Citus cannot distribute a Citus local table with an identity column (ledger_entries: "cannot complete
    -- operation on a table with identity column"); and a key within a family (chains <- transactions) is one
    -- Citus refuses while the referencing table is still local ("foreign keys from reference tables and local
    -- tables to distributed tables are not supported").
    FOR key IN
        SELECT f.conrelid::regclass AS relation, f.conname, pg_get_constraintdef(f.oid) AS definition
        FROM pg_constraint f
        JOIN unnest(plan_tables, plan_kinds) AS p(relation, kind) ON p.relation::regclass = f.conrelid
        WHERE f.contype = 'f' AND f.conrelid <> f.confrelid AND p.kind = 'distributed'
          AND NOT EXISTS (SELECT FROM pg_dist_partition d WHERE d.logicalrelid = f.conrelid AND d.partmethod = 'h')
        ORDER BY 1, 2
    LOOP
        RAISE NOTICE 'foreign key % of % dropped until its tables are placed',
            key.conname, key.relation;
        -- The statement that adds the key back names the table before the drop: a table Citus made a Citus local
        -- table only for its foreign key to a reference table is turned back into a plain table (a new oid) when
        -- that key goes, and the old regclass would then print as a bare number.
        family_keys := family_keys
            || format('ALTER TABLE %s ADD CONSTRAINT %I %s', key.relation, key.conname, key.definition);
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', key.relation, key.conname);
    END LOOP;

    FOR i IN 1 .. coalesce(cardinality(plan_tables), 0) LOOP
        t := plan_tables[i]::regclass;
        -- Already placed (an earlier run), or a Citus local table still to place.
        CONTINUE WHEN EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = t
                              AND NOT (partmethod = 'n' AND repmodel <> 't'));
        IF plan_kinds[i] = 'reference' THEN
            RAISE NOTICE '% -> reference table', t;
            PERFORM create_reference_table(t);
        ELSE
            RAISE NOTICE '% -> distributed by %, colocate_with %', t, plan_columns[i],
                plan_colocate[i];
            PERFORM create_distributed_table(t, plan_columns[i], colocate_with => plan_colocate[i]);
        END IF;
    END LOOP;

    FOREACH statement IN ARRAY family_keys LOOP
        EXECUTE statement;
    END LOOP;

    -- Citus 12.1 loses the comment of a table it converts (to a Citus local table, or from one to a reference or
    -- distributed table): the comments are put back, so that the schema still says where each table goes.
    FOR j IN 1 .. coalesce(cardinality(comment_tables), 0) LOOP
        IF obj_description(comment_tables[j]::regclass, 'pg_class') IS DISTINCT FROM comment_texts[j] THEN
            EXECUTE format('COMMENT ON TABLE %s IS %L', comment_tables[j], comment_texts[j]);
        END IF;
    END LOOP;

    -- A function of a table's row type (ledger_chain_fields(receipts)) follows the table when Citus makes it a
    -- Citus local table: the table is renamed to its shard (receipts_102008) behind a new shell of the old name,
    -- and the function now takes the shard's row type, so a call with a row of the shell finds no function. Each
    -- such function is defined again for the shell's row type (the shard's version stays, unused).
    FOR key IN
        SELECT p.oid AS function, c.relname AS shard, shell.relname AS shell
        FROM pg_proc p
        JOIN pg_type ty ON ty.oid = ANY (p.proargtypes::oid[])
        JOIN pg_class c ON c.oid = ty.typrelid
        JOIN pg_class shell ON shell.relnamespace = c.relnamespace
                           AND shell.relname = regexp_replace(c.relname, '_[0-9]+$', '')
        WHERE p.pronamespace = current_schema()::regnamespace AND relation_is_a_known_shard(c.oid)
          AND EXISTS (SELECT FROM pg_dist_partition d WHERE d.logicalrelid = shell.oid
                      AND d.partmethod = 'n' AND d.repmodel <> 't')
        ORDER BY p.oid
    LOOP
        EXECUTE regexp_replace(pg_get_functiondef(key.function), '\m' || key.shard || '\M', key.shell, 'g');
    END LOOP;

    -- Citus plans no statement of a LANGUAGE sql function with parameters that reads a distributed table
    -- ("parameterized queries for SQL functions referencing distributed tables are not supported"): the report
    -- projector's per-chain functions (chain_money_facts_of and the like) are such functions, with one query each
    -- (in the database's schema steps, only these).
    -- Each is defined again as PL/pgSQL returning the same query, planned for the call's values
    -- (force_custom_plan), so that Citus sees the chain's key and routes the query to the worker holding the chain.
    -- The query is the function's own text: the two definitions cannot differ.
    FOR key IN
        SELECT p.oid, p.prosrc
        FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
        WHERE p.pronamespace = current_schema()::regnamespace AND l.lanname = 'sql' AND p.proretset
          AND p.pronargs > 0
          -- It names a distributed table, or a view over one (transaction_amounts).
          AND EXISTS (
              SELECT FROM pg_class c
              WHERE c.relnamespace = p.pronamespace AND p.prosrc ~ ('\m' || c.relname || '\M')
                AND (EXISTS (SELECT FROM pg_dist_partition d WHERE d.logicalrelid = c.oid AND d.partmethod = 'h')
                     OR (c.relkind = 'v' AND EXISTS (
                         SELECT FROM pg_rewrite r
                         JOIN pg_depend e ON e.classid = 'pg_rewrite'::regclass AND e.objid = r.oid
                         JOIN pg_dist_partition d ON d.logicalrelid = e.refobjid AND d.partmethod = 'h'
                         WHERE r.ev_class = c.oid))))
        ORDER BY p.oid
    LOOP
        IF regexp_replace(key.prosrc, ';\s*$', '') ~ ';' THEN
            RAISE EXCEPTION 'the SQL function % reads a distributed table and has more than one statement',
                key.oid::regprocedure
                USING HINT = 'Citus cannot plan it; write it as one query';
        END IF;
        EXECUTE format(
            'CREATE OR REPLACE FUNCTION %s.%I(%s) RETURNS %s LANGUAGE plpgsql %s SET plan_cache_mode = force_custom_plan AS %L',
            current_schema(), (SELECT proname FROM pg_proc WHERE oid = key.oid), pg_get_function_arguments(key.oid),
            pg_get_function_result(key.oid),
            CASE (SELECT provolatile FROM pg_proc WHERE oid = key.oid)
                WHEN 'i' THEN 'IMMUTABLE' WHEN 's' THEN 'STABLE' ELSE 'VOLATILE' END,
            E'#variable_conflict use_column\nBEGIN\nRETURN QUERY\n' || regexp_replace(key.prosrc, ';\s*$', '')
                || E'\n;\nEND');
    END LOOP;

    -- The report projector's refresh functions keep generic plans on a single PostgreSQL (planned once per
    -- connection); on Citus each statement is planned for its chain, so that it is routed to one worker.
    FOR key IN
        SELECT p.oid::regprocedure AS function FROM pg_proc p
        WHERE p.pronamespace = current_schema()::regnamespace
          AND p.proname IN ('chain_cohort_facts_refresh', 'chain_money_facts_refresh', 'chain_report_spans_refresh')
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET plan_cache_mode = force_custom_plan', key.function);
    END LOOP;

    -- Citus creates a function on the workers only once it is a distributed object; the schema's functions were
    -- created before the extension knew of them. A statement routed to a worker that calls one (an INSERT …
    -- SELECT through a function of a row type, a trigger on a shard) needs it there.
    FOR key IN
        SELECT p.oid::regprocedure AS function
        FROM pg_proc p
        WHERE p.pronamespace = current_schema()::regnamespace AND p.prokind IN ('f', 'p')
          AND NOT EXISTS (SELECT FROM pg_depend e WHERE e.classid = 'pg_proc'::regclass AND e.objid = p.oid
                          AND e.deptype = 'e')
          AND NOT EXISTS (SELECT FROM pg_dist_object o WHERE o.classid = 'pg_proc'::regclass AND o.objid = p.oid)
          -- A function of a coordinator table's row type (receipts, notifications), or an array of one, stays on
          -- the coordinator with the statements that call it: Citus propagates no object that depends on a table
          -- only the coordinator has.
          AND NOT EXISTS (
              SELECT FROM pg_depend e
              JOIN pg_type ty ON e.refclassid = 'pg_type'::regclass AND ty.oid = e.refobjid
              LEFT JOIN pg_type elem ON elem.oid = ty.typelem
              WHERE e.classid = 'pg_proc'::regclass AND e.objid = p.oid
                AND coalesce(nullif(ty.typrelid, 0), elem.typrelid, 0) <> 0
                AND NOT EXISTS (SELECT FROM pg_dist_partition d
                                WHERE d.logicalrelid = coalesce(nullif(ty.typrelid, 0), elem.typrelid)
                                  AND NOT (d.partmethod = 'n' AND d.repmodel <> 't')))
          -- Nor one whose body names a coordinator table (ledger_chain_link reads the input it links): the
          -- coordinator runs it, and a copy on the workers could not.
          AND NOT EXISTS (
              SELECT FROM pg_dist_partition d JOIN pg_class c ON c.oid = d.logicalrelid
              WHERE d.partmethod = 'n' AND d.repmodel <> 't' AND c.relnamespace = p.pronamespace
                AND p.prosrc ~ ('\m' || c.relname || '\M'))
        ORDER BY p.oid
    LOOP
        PERFORM create_distributed_function(key.function);
    END LOOP;

    -- An apply reads across shards (the webhook events' holdings) and then writes the coordinator's tables (the
    -- input's status) in one transaction. Citus refuses that write after a parallel multi-shard statement; in
    -- sequential mode a multi-shard statement uses one connection per worker, and the write is allowed. Every new
    -- session of the database starts so.
    EXECUTE format('ALTER DATABASE %I SET citus.multi_shard_modify_mode TO sequential', current_database());
END
$distribute$;

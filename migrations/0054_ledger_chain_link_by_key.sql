-- step 54: the hash chain's link reads by key, whatever the planner's statistics say
-- `ledger_chain_link` keeps one generic plan of each of its statements for the connection's life
-- (`plan_cache_mode = force_generic_plan`). A plan made while the statistics said a table was empty or nearly so (a new
-- database, or a VACUUM ANALYZE before the first notification) read the notification by a sequential scan rather than
-- its primary key, and kept doing so until the next ANALYZE of `notifications` replaced the plan: meanwhile every
-- notification read the whole table, each one slower than the last. Every statement of the function reads or writes
-- one chain's rows or one input by key, through an index, so no plan of it should scan a table whole.
ALTER FUNCTION ledger_chain_link(bigint, text, text, bigint, bigint, bigint) SET enable_seqscan = off;

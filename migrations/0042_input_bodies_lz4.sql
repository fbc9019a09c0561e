-- step 42: the stored receipts' and notifications' bodies compressed with lz4
-- A body is base64 text of 4 to 16 KB (a receipt, a JWS holding two more), stored out of line. PostgreSQL's default
-- compression, pglz, works through the whole value and then stores it uncompressed, since base64 of signatures and
-- certificates does not shrink by the quarter it asks for: about 0.08 ms of a backend's CPU for each 12 KB
-- notification stored, for nothing. lz4 takes half that, and keeps what it saves (about a tenth). It applies to
-- bodies stored from now on; a server built without lz4 keeps pglz (a notice says so).
DO $$
BEGIN
    ALTER TABLE notifications ALTER COLUMN body SET COMPRESSION lz4;
    ALTER TABLE receipts ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this PostgreSQL has no lz4: the inputs'' bodies stay compressed with pglz';
END
$$;

-- A statement that decided its writes on rows it read earlier, without a lock, runs them only if
-- those rows are as it read them (db/sql.ts, writesIfUnchanged): it locks them again with the
-- values it expects and passes how many it found here. None found means another statement changed
-- them in between: the error aborts the whole statement, every write of it with it, as the
-- serialization failure it is, and the caller decides again under a lock.
CREATE FUNCTION expect_unchanged(rows_found bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  IF rows_found = 0 THEN
    RAISE EXCEPTION 'the rows changed since they were read' USING ERRCODE = 'serialization_failure';
  END IF;
  RETURN rows_found;
END;
$$;

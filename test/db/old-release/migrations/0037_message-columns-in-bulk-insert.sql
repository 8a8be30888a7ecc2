-- Documents existing before 0036 happened when they were ingested, as far as the service knows. (The bulk insert
-- writes 0036's columns from 0040 on, where insert_indexed_documents is defined once with them and with a
-- message's context.)
UPDATE documents SET occurred_at = created_at;

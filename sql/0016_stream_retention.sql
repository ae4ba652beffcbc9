-- stream_events retention (STREAM_EVENTS_RETENTION_DAYS): the watcher deletes rows received before the
-- cutoff in batches, oldest first; this index finds them without reading the whole table.

create index stream_events_by_received on stream_events (received_at);

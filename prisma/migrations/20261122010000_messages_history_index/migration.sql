-- A history page reads a conversation in (created_at, id) order. With id in the index, PostgreSQL
-- merges the partitions' index scans and stops after one page, instead of reading and sorting the
-- whole conversation: a page costs the same for a conversation of 100 messages or of 100,000.
CREATE INDEX "messages_conv_id_created_at_id_idx" ON "messages"("conv_id", "created_at", "id");

DROP INDEX "messages_conv_id_created_at_idx";

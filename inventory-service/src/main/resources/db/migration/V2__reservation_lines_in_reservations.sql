-- An order's held lines move into its reservation row, as two parallel arrays in SKU order. They are written once, with
-- the decision that reserves them, and read only with their reservation (a cancellation releases them, a shipment
-- deducts them), so one row per order is the natural unit: a batch writes one row per order instead of one per line,
-- and the per-row foreign-key checks of reservation_lines (two lookups for every line) are gone. Every SKU of a line
-- was read from the stock table under its row lock, in the same transaction, and stock rows are never deleted.
ALTER TABLE reservations
    ADD COLUMN line_skus       text[]    NOT NULL DEFAULT '{}',
    ADD COLUMN line_quantities integer[] NOT NULL DEFAULT '{}',
    ADD CONSTRAINT reservations_lines_paired CHECK (cardinality(line_skus) = cardinality(line_quantities)),
    ADD CONSTRAINT reservations_lines_positive CHECK (0 < ALL (line_quantities));

UPDATE reservations r
SET line_skus = l.skus, line_quantities = l.quantities
FROM (SELECT order_id, array_agg(sku ORDER BY sku) AS skus, array_agg(quantity ORDER BY sku) AS quantities
      FROM reservation_lines
      GROUP BY order_id) AS l
WHERE r.order_id = l.order_id;

DROP TABLE reservation_lines;

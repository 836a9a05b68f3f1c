-- One product that is sold out: an order for it is rejected (InventoryRejected, then OrderRejected), which is how
-- ops/bin/load --out-of-stock SHARE and the saga's drills make rejections without emptying the other SKUs' stock.
INSERT INTO stock (sku, on_hand) VALUES ('sku-sold-out', 0) ON CONFLICT (sku) DO NOTHING;

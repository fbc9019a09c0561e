import PostgresLibPQ
import SubLedgerCore

/// The `catalog_prices` rows of one product: `catalog apply` replaces them with the file's list.
enum CatalogPriceRows {
    /// Replaces the product's price points with `prices` (an empty list removes them all). Two points for the
    /// same storefront (or both for every storefront) and day are refused before anything is written.
    static func replace(_ prices: [PricePoint], of productID: String, appID: Int64, on connection: PostgresConnection)
        throws
    {
        var seen: Set<String> = []
        for point in prices where !seen.insert("\(point.storefront ?? "*") \(point.effectiveFromDay)").inserted {
            throw StoreError(
                code: .invalidCatalog,
                message: "product \(productID) has two price points for storefront \(point.storefront ?? "(all)") "
                    + "from \(CalendarDay.text(point.effectiveFromDay))")
        }
        try connection.query("DELETE FROM catalog_prices WHERE app_id = \(appID) AND product_id = \(productID)")
        for point in prices {
            try connection.query(
                """
                INSERT INTO catalog_prices (app_id, product_id, storefront, currency, price_milliunits, effective_from)
                VALUES (\(appID), \(productID), \(point.storefront), \(point.currency), \(point.priceMilliunits),
                    \(CalendarDay.text(point.effectiveFromDay))::date::timestamp AT TIME ZONE 'UTC')
                """)
        }
    }
}

import AppStoreSimulator
import PostgresLibPQ
import SubLedgerCore
import Testing

/// What other accounts were sent about an erased account loses its id too (docs/guides/accounts.md, "Erasing an
/// account"). Found by the customer-life simulation (`CustomerLifeSimulationTests`): the account that took a chain from
/// the erased one keeps the event of it, `entitlement.granted` with reason `transferred`, whose key carries the
/// transfer entry's key (`transferIn:…:<erased id>-><taker>:…`) though its body names only the taker.
@Suite struct AccountErasureOtherAccountsEventsTests {
    typealias E = EndToEndHarness

    @Test func theEventOfTakingTheErasedAccountsChainLosesTheId() async throws {
        try await E.run { e in
            try await e.applyCatalog(ownershipPolicy: .latestSubmitterTakes)
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(bought.receiptData, account: "erasable-owner")
            let taken = try await e.submitReceipt(bought.receiptData, account: "taker")
            #expect(taken.status == .ok)
            #expect(try await e.owner(of: try #require(bought.originalTransactionID)) == "taker")
            let naming: PostgresQuery = """
                SELECT count(*) FROM webhook_events WHERE strpos(idempotency_key || ' ' || coalesce(cause_id, '')
                    || ' ' || body, 'erasable-owner') > 0 AND account_id = 'taker'
                """
            #expect(try await e.service.pool.query(naming).single().decode(Int64.self, at: 0) > 0)

            let admin = try await e.service.keys.create(bundleID: nil, name: "privacy").secret
            let erased = try await e.client.call(
                .delete, "/v1/accounts/erasable-owner?bundle_id=\(E.bundleID)", key: admin)
            #expect(erased.status == .ok, "\(erased.json)")
            #expect(try await e.service.pool.query(naming).single().decode(Int64.self, at: 0) == 0)
            let anywhere = try await e.service.pool.query(
                "SELECT count(*) FROM webhook_events e WHERE strpos(e::text, 'erasable-owner') > 0")
            #expect(try anywhere.single().decode(Int64.self, at: 0) == 0)
        }
    }
}

import AppStore
import AppStoreClients
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// Look Up Order ID as Apple answers it: status 0 with the order's signed transactions, status 1 (and none)
/// for an order id this app and environment do not have. Every purchase and every renewal is its own order.
@Suite struct SupportOrderLookupTests {
    @Test func eachPurchaseAndRenewalHasItsOwnOrderIDThatLooksUpItsTransaction() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("order@example.com")
            let first = try await fixture.buy("order@example.com", "pro.monthly")
            let orderID = try #require(first.orderID)
            #expect(orderID.count == 10)
            #expect(orderID.allSatisfy { $0.isUppercase || $0.isNumber })

            _ = try await fixture.advance(days: 32)  // Apple renews: a new invoice, a new order id
            let client = try fixture.serverAPIClient()
            let history = try await client.allTransactionHistory(transactionID: try #require(first.transactionID))
            #expect(history.count >= 2)

            let lookup = try await client.lookUpOrder(orderID: orderID)
            #expect(lookup.status == 0)
            #expect(lookup.transactions.map(\.transactionID) == [first.transactionID])
            #expect(lookup.transactions.first?.originalTransactionID == first.originalTransactionID)

            let second = try await fixture.buy("order@example.com", "coins")
            #expect(second.orderID != nil)
            #expect(second.orderID != orderID)
        }
    }

    @Test func anUnknownOrderIDOrOneOfAnotherEnvironmentIsStatusOneWithoutTransactions() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("sandboxed@example.com")
            let bought = try await fixture.buy("sandboxed@example.com", "pro.monthly")
            let unknown = try await fixture.serverAPIClient().lookUpOrder(orderID: "ZZZZZZZZZZ")
            #expect(unknown.status == 1)
            #expect(unknown.transactions.isEmpty)
            // The purchase is a sandbox one: production's Look Up Order ID does not know it.
            let production = try await fixture.serverAPIClient(.production).lookUpOrder(
                orderID: try #require(bought.orderID))
            #expect(production.status == 1)
            #expect(production.transactions.isEmpty)
        }
    }
}

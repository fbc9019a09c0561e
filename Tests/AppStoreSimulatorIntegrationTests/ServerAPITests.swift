import AppStore
import AppStoreClients
import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import SubLedgerCore
import Testing

@Suite struct ServerAPITests {
    @Test func aValidTokenReadsHistoryStatusesInfoOrdersAndRefunds() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("api@example.com")
            let bought = try await fixture.buy("api@example.com", "pro.monthly")
            _ = try await fixture.advance(days: 31 * 24)
            let client = try fixture.serverAPIClient()
            let history = try await client.allTransactionHistory(transactionID: bought.transactionID!)
            #expect(history.count == 25)
            #expect(Set(history.map(\.originalTransactionID)) == [bought.originalTransactionID])
            let firstPage = try await client.transactionHistory(transactionID: bought.transactionID!)
            #expect(firstPage.hasMore)
            #expect(firstPage.transactions.count == 20)

            let statuses = try await client.allSubscriptionStatuses(transactionID: bought.transactionID!)
            #expect(statuses.groups.first?.subscriptionGroupIdentifier == "pro")
            #expect(statuses.groups.first?.lastTransactions.first?.status == .active)

            let info = try await client.transactionInfo(transactionID: bought.transactionID!)
            #expect(info.productID == "pro.monthly")
            let order = try await client.lookUpOrder(orderID: bought.orderID!)
            #expect(order.status == 0)
            #expect(order.transactions.map(\.transactionID) == [bought.transactionID])

            _ = try await fixture.action("/control/transactions/\(bought.transactionID!)/refund", body: RefundRequest())
            let refunds = try await client.allRefundHistory(transactionID: bought.transactionID!)
            #expect(refunds.map(\.transactionID) == [bought.transactionID])

            await #expect(throws: AppStoreServerAPIError.self) {
                _ = try await client.transactionInfo(transactionID: "9999999999")
            }
        }
    }

    @Test func expiredOrForeignTokensAreUnauthorized() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("jwt@example.com")
            let bought = try await fixture.buy("jwt@example.com", "pro.monthly")
            let twoHoursAgo = Instant.systemNow().adding(milliseconds: -2 * 3_600_000)
            let expired = try fixture.serverAPIClient(now: { twoHoursAgo })
            do {
                _ = try await expired.transactionInfo(transactionID: bought.transactionID!)
                Issue.record("an expired token was accepted")
            } catch let error as AppStoreServerAPIError {
                #expect(error.code == .unauthorized)
            }
            let stranger = AppStoreServerAPIClient(
                httpClient: fixture.http,
                configuration: .init(environment: .sandbox, baseURL: fixture.simulator.serverAPIBaseURL(.sandbox)),
                tokenIssuer: try ServerAPITokenIssuer(
                    issuerID: fixture.app.serverAPI.issuerID, keyID: fixture.app.serverAPI.keyID,
                    bundleID: SimulatorFixture.bundleID, privateKeyPEM: P256Key.fresh()),
                verifier: try fixture.verifier())
            do {
                _ = try await stranger.transactionInfo(transactionID: bought.transactionID!)
                Issue.record("a token signed by another key was accepted")
            } catch let error as AppStoreServerAPIError {
                #expect(error.code == .unauthorized)
            }
        }
    }
}

import AppStore
import AppStoreClients
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// appstore-sim's three renewal-date extension endpoints answer as Apple's do.
@Suite struct RenewalExtensionEndpointTests {
    private static func extend(
        _ client: AppStoreServerAPIClient, _ original: String, days: Int, id: String
    ) async throws -> ExtendRenewalDateResponse {
        try await client.extendRenewalDate(
            originalTransactionID: original,
            ExtendRenewalDateRequest(extendByDays: days, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: id)
        )
    }

    private static func apiErrorCode(_ body: () async throws -> Void) async -> Int? {
        do {
            try await body()
            return nil
        } catch let error as AppStoreServerAPIError {
            return error.apiErrorCode
        } catch {
            return -1
        }
    }

    @Test func anExtensionMovesTheRenewalDateAndTheThirdInAYearIsRefused() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("ext@example.com")
            let bought = try await fixture.buy("ext@example.com", "pro.monthly")
            let original = try #require(bought.originalTransactionID)
            let client = try fixture.serverAPIClient()
            let before = try await client.transactionInfo(transactionID: original)
            let beforeExpiry = try #require(before.expiresDate)

            let first = try await Self.extend(client, original, days: 10, id: "first")
            #expect(first.success == true)
            #expect(first.originalTransactionID == original)
            #expect(first.webOrderLineItemID == before.webOrderLineItemID)
            let effective = try #require(first.effectiveDate)
            #expect(effective > beforeExpiry)
            let after = try await client.transactionInfo(transactionID: original)
            #expect(after.expiresDate == effective)

            // The same request identifier answers the same answer and extends nothing more.
            let again = try await Self.extend(client, original, days: 10, id: "first")
            #expect(again == first)
            #expect(try await client.transactionInfo(transactionID: original).expiresDate == effective)

            _ = try await Self.extend(client, original, days: 1, id: "second")
            let third = await Self.apiErrorCode { _ = try await Self.extend(client, original, days: 1, id: "third") }
            #expect(third == 4_030_005)

            let types = fixture.simulator.control.notifications().map { $0.notificationType }
            #expect(types.filter { $0 == "RENEWAL_EXTENDED" }.count == 2)
        }
    }

    @Test func badBodiesAndIneligibleSubscriptionsGetApplesErrorCodes() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("bad@example.com")
            let bought = try await fixture.buy("bad@example.com", "pro.monthly")
            let original = try #require(bought.originalTransactionID)
            let client = try fixture.serverAPIClient()
            #expect(
                await Self.apiErrorCode { _ = try await Self.extend(client, original, days: 0, id: "a") } == 4_000_009)
            #expect(
                await Self.apiErrorCode { _ = try await Self.extend(client, original, days: 91, id: "b") } == 4_000_009)
            let longID = String(repeating: "x", count: 129)
            #expect(
                await Self.apiErrorCode { _ = try await Self.extend(client, original, days: 5, id: longID) }
                    == 4_000_011)
            #expect(await Self.apiErrorCode { _ = try await Self.extend(client, "abc", days: 5, id: "c") } == 4_000_008)
            #expect(
                await Self.apiErrorCode { _ = try await Self.extend(client, "1999", days: 5, id: "d") } == 4_040_005)
            let lifetime = try await fixture.buy("bad@example.com", "lifetime")
            #expect(
                await Self.apiErrorCode {
                    _ = try await Self.extend(client, try #require(lifetime.originalTransactionID), days: 5, id: "e")
                } == 4_040_005)
            _ = try await fixture.action(
                "/control/subscriptions/\(original)/auto-renew", body: AutoRenewRequest(enabled: false))
            _ = try await fixture.advance(days: 40)
            #expect(
                await Self.apiErrorCode { _ = try await Self.extend(client, original, days: 5, id: "f") } == 4_030_004)
            #expect(
                await Self.apiErrorCode {
                    _ = try await client.massExtendRenewalDate(
                        MassExtendRenewalDateRequest(
                            extendByDays: 5, extendReasonCode: .other, requestIdentifier: "m",
                            storefrontCountryCodes: ["US"], productID: "pro.monthly"))
                } == 4_000_028)
            #expect(
                await Self.apiErrorCode {
                    _ = try await client.massExtendRenewalDate(
                        MassExtendRenewalDateRequest(
                            extendByDays: 5, extendReasonCode: .other, requestIdentifier: "m",
                            storefrontCountryCodes: nil, productID: "coins"))
                } == 4_000_023)
            #expect(
                await Self.apiErrorCode {
                    _ = try await client.massExtensionStatus(productID: "pro.monthly", requestIdentifier: "nothing")
                } == 4_040_009)
        }
    }

    @Test func aMassExtensionCompletesLaterAndSendsASummary() async throws {
        // Completed when the test says, through the control API: pending until then, whatever the machine's pace.
        try await SimulatorFixture.with(massExtensionCompletionDelay: nil) { fixture in
            _ = try await fixture.createAppleID("m1@example.com")
            _ = try await fixture.createAppleID("m2@example.com")
            let one = try await fixture.buy("m1@example.com", "pro.monthly")
            _ = try await fixture.buy("m2@example.com", "pro.monthly")
            let client = try fixture.serverAPIClient()
            let before = try #require(
                try await client.transactionInfo(transactionID: one.originalTransactionID!).expiresDate)
            let accepted = try await client.massExtendRenewalDate(
                MassExtendRenewalDateRequest(
                    extendByDays: 3, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "mass-1",
                    storefrontCountryCodes: nil, productID: "pro.monthly"))
            #expect(accepted.requestIdentifier == "mass-1")
            let pending = try await client.massExtensionStatus(productID: "pro.monthly", requestIdentifier: "mass-1")
            #expect(pending.complete == false)
            #expect(pending.succeededCount == nil)
            let completed = try await fixture.controlClient.call(
                "POST", "/control/extensions/mass/complete", body: [String: String](),
                as: MassExtensionsCompleted.self)
            #expect(completed.completed == 1)
            let status = try await client.massExtensionStatus(productID: "pro.monthly", requestIdentifier: "mass-1")
            #expect(status.complete == true)
            #expect(status.succeededCount == 2)
            #expect(status.failedCount == 0)
            #expect(status.completeDate != nil)
            let after = try #require(
                try await client.transactionInfo(transactionID: one.originalTransactionID!).expiresDate)
            #expect(after > before)
            let summaries = fixture.simulator.control.notifications().filter {
                $0.notificationType == "RENEWAL_EXTENSION" && $0.subtype == "SUMMARY"
            }
            #expect(summaries.count == 1)
        }
    }
}

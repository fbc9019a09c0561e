import AppStore
import AppStoreClients
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// The simulator's Send Consumption Information checks bodies as Apple documents them and records every call.
@Suite struct ConsumptionEndpointTests {
    static let valid = ConsumptionRequest(
        customerConsented: true, sampleContentProvided: false, deliveryStatus: "DELIVERED",
        consumptionPercentage: 30_000,
        refundPreference: "DECLINE")

    static func refusal(_ body: () async throws(AppStoreServerAPIError) -> Void) async -> AppStoreServerAPIError? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test func applesRulesAreCheckedAndEveryCallIsRecorded() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("refund@example.com")
            let bought = try await fixture.buy("refund@example.com", "coins")
            let id = try #require(bought.transactionID)
            let client = try fixture.serverAPIClient()

            // The customer asks Apple for a refund: Apple sends CONSUMPTION_REQUEST.
            let asked = try await fixture.controlClient.call(
                "POST", "/control/transactions/\(id)/consumption-request", body: [String: String](),
                as: ConsumptionRequestResult.self)
            #expect(asked.notificationUUIDs.count == 1)

            try await client.sendConsumptionInformation(transactionID: id, Self.valid)

            var unconsented = Self.valid
            unconsented.customerConsented = false
            #expect(
                await Self.refusal { () throws(AppStoreServerAPIError) in
                    try await client.sendConsumptionInformation(transactionID: id, unconsented)
                }?.apiErrorCode == 4_000_035)

            var undelivered = Self.valid
            undelivered.deliveryStatus = "UNDELIVERED_OTHER"
            #expect(
                await Self.refusal { () throws(AppStoreServerAPIError) in
                    try await client.sendConsumptionInformation(transactionID: id, undelivered)
                }?.httpStatus == 400)

            var unknownStatus = Self.valid
            unknownStatus.deliveryStatus = "LOST"
            #expect(
                await Self.refusal { () throws(AppStoreServerAPIError) in
                    try await client.sendConsumptionInformation(transactionID: id, unknownStatus)
                }?.apiErrorCode == 4_000_036)

            #expect(
                await Self.refusal { () throws(AppStoreServerAPIError) in
                    try await client.sendConsumptionInformation(transactionID: "9999999999", Self.valid)
                }?.code == .transactionIDNotFound)

            let badTenure = ConsumptionRequestV1(
                accountTenure: 9, appAccountToken: "", consumptionStatus: 0, customerConsented: true, deliveryStatus: 0,
                lifetimeDollarsPurchased: 0, lifetimeDollarsRefunded: 0, platform: 1, playTime: 0, refundPreference: 3,
                sampleContentProvided: false, userStatus: 1)
            #expect(
                await Self.refusal { () throws(AppStoreServerAPIError) in
                    try await client.sendConsumptionInformationV1(transactionID: id, badTenure)
                }?.apiErrorCode == 4_000_032)

            // GRANT_PRORATED: a consumable's answer may state what was consumed; an auto-renewable's may not
            // (Apple prorates it by the time left).
            var proratedCoins = Self.valid
            proratedCoins.refundPreference = "GRANT_PRORATED"
            proratedCoins.consumptionPercentage = 25_000
            try await client.sendConsumptionInformation(transactionID: id, proratedCoins)
            let monthly = try #require(try await fixture.buy("refund@example.com", "pro.monthly").transactionID)
            #expect(
                await Self.refusal { () throws(AppStoreServerAPIError) in
                    try await client.sendConsumptionInformation(transactionID: monthly, proratedCoins)
                }?.httpStatus == 400)
            var proratedSubscription = proratedCoins
            proratedSubscription.consumptionPercentage = nil
            try await client.sendConsumptionInformation(transactionID: monthly, proratedSubscription)

            // The control route tests read back (through HTTP, as a team's suite would).
            let listed = try await fixture.controlClient.call(
                "GET", "/control/consumption", body: [String: String](), as: [ReceivedConsumptionInformation].self)
            #expect(listed.count == 9)
            let received = fixture.simulator.control.receivedConsumptionInformation()
            #expect(received.map(\.status) == [202, 400, 400, 400, 404, 400, 202, 400, 202])
            #expect(received.map(\.version) == ["v2", "v2", "v2", "v2", "v2", "v1", "v2", "v2", "v2"])
            #expect(received.first?.transactionID == id)
        }
    }
}

import AppStore
import Foundation
import SubLedgerCore
import Testing

/// SubLedger's answer spelled as Apple's two Send Consumption Information bodies.
@Suite struct ConsumptionRequestEncodingTests {
    static let information = ConsumptionInformation(
        customerConsented: true, sampleContentProvided: false, deliveryStatus: .undeliveredOther,
        consumptionMilliunits: 0, refundPreference: .noPreference, accountTenure: 3, appAccountToken: "",
        consumptionStatus: 1, lifetimeDollarsPurchased: 2, lifetimeDollarsRefunded: 1, platform: 1, playTime: 0,
        userStatus: 1)

    static func json(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test func v2LeavesOutNoPreferenceAndSpellsTheStatus() throws {
        let body = try Self.json(ConsumptionRequest(Self.information))
        #expect(body["deliveryStatus"] as? String == "UNDELIVERED_OTHER")
        #expect(body["consumptionPercentage"] as? Int == 0)
        #expect(body["refundPreference"] == nil)
        #expect(
            Set(body.keys) == ["customerConsented", "sampleContentProvided", "deliveryStatus", "consumptionPercentage"])
        var grant = Self.information
        grant.refundPreference = .grant
        grant.consumptionMilliunits = nil
        let granted = try Self.json(ConsumptionRequest(grant))
        #expect(granted["refundPreference"] as? String == "GRANT_FULL")
        #expect(granted["consumptionPercentage"] == nil)
        grant.refundPreference = .grantProrated
        #expect(try Self.json(ConsumptionRequest(grant))["refundPreference"] as? String == "GRANT_PRORATED")
        #expect(ConsumptionRequestV1.code(ConsumptionRefundPreference.grantProrated) == 0)
    }

    @Test func v1SendsEveryFieldAsApplesCodes() throws {
        let body = try Self.json(ConsumptionRequestV1(Self.information))
        #expect(body.count == 12)
        #expect(body["deliveryStatus"] as? Int == 5)
        #expect(body["refundPreference"] as? Int == 3)
        #expect(body["accountTenure"] as? Int == 3)
        #expect(body["appAccountToken"] as? String == "")
    }
}

import Foundation
import SeededRandom
import SubLedgerCore
import Testing

@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// The entitlement read's body is written directly to bytes; it must say exactly what `Codable` encoding of
/// the API's shapes says (same members, same values, absent optionals left out), and times must read as
/// Foundation's ISO 8601 style writes them.
@Suite struct EntitlementsResponseEncodingTests {
    @Test func timesMatchFoundationsISO8601FormAcrossTheAcceptedRange() {
        var rng = SplitMix64(seed: 0x7133)
        var samples: [Int64] = [0, 1, 999, 86_399_999, 951_782_400_000, 253_402_300_799_000, 253_402_300_799_999]
        for _ in 0..<3_000 { samples.append(Int64.random(in: 0...253_402_300_799_999, using: &rng)) }
        // And densely around today, where every read's times lie.
        for _ in 0..<3_000 { samples.append(Int64.random(in: 1_600_000_000_000...2_000_000_000_000, using: &rng)) }
        for milliseconds in samples {
            let instant = Instant(millisecondsSince1970: milliseconds)
            #expect(InstantText.format(instant) == InstantText.formatThroughFoundation(instant), "\(milliseconds) ms")
        }
        // Outside years 1970 to 9999 the Foundation form is used as it was.
        let before = Instant(millisecondsSince1970: -1)
        #expect(InstantText.format(before) == InstantText.formatThroughFoundation(before))
    }

    @Test func bodyEqualsTheCodableEncodingOfTheSameEntitlements() throws {
        let account = try AccountID("alice+1@example.com")
        let at = Instant(millisecondsSince1970: 1_764_000_000_123)
        let entitlements = [
            Entitlement(
                entitlementID: "premium", productID: "premium.monthly", productType: .autoRenewable,
                bundleID: "com.example.app", environment: .production, originalTransactionID: "1000\u{1}\"x\\/π",
                transactionID: "t1", state: .gracePeriod, expiresAt: at,
                gracePeriodExpiresAt: at.adding(milliseconds: 5),
                willAutoRenew: false, ownershipType: .familyShared),
            Entitlement(
                entitlementID: "lifetime", productID: "lifetime", productType: .nonConsumable,
                bundleID: "com.example.app",
                environment: .sandbox, originalTransactionID: "2000", transactionID: "t2", state: .active,
                expiresAt: nil,
                gracePeriodExpiresAt: nil, willAutoRenew: nil, ownershipType: .purchased),
        ]
        struct Reference: Encodable {
            var account_id: String
            var at: String?
            var entitlements: [Representation.EntitlementBody]
            var credits: Int64
        }
        let reference = Reference(
            account_id: account.rawValue, at: InstantText.format(at),
            entitlements: entitlements.map(Representation.EntitlementBody.init), credits: -42)
        let expected = try JSONSerialization.jsonObject(with: JSONEncoder().encode(reference)) as? NSDictionary
        let direct = Representation.EntitlementsResponse(
            account: account, at: at, entitlements: entitlements, credits: -42
        ).json()
        let actual = try JSONSerialization.jsonObject(with: Data(direct)) as? NSDictionary
        #expect(expected != nil)
        #expect(actual == expected)
        // Optionals that are nil are left out, as synthesized `Codable` leaves them out.
        let second = try #require((actual?["entitlements"] as? [NSDictionary])?.last)
        #expect(second["expires_at"] == nil && second["will_auto_renew"] == nil)
    }
}

import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// The entitlement read's body is written directly to bytes; it must say exactly what `Codable` encoding of
/// the API's shapes says (same members, same values, absent optionals left out; times through
/// `RFC3339.append` as `RFC3339.format` writes them, tested in SubLedgerCoreTests' `RFC3339Tests`).
@Suite struct EntitlementsResponseEncodingTests {
    @Test func bodyEqualsTheCodableEncodingOfTheSameEntitlements() throws {
        let account = try AccountID("alice+1@example.com")
        let at = Instant(millisecondsSince1970: 1_764_000_000_123)
        let entitlements = [
            Entitlement(
                entitlementID: "premium", productID: "premium.monthly", productType: .autoRenewable,
                bundleID: "com.example.app", environment: .production, chainID: "1000\u{1}\"x\\/π",
                transactionID: "t1", state: .gracePeriod, expiresAt: at,
                gracePeriodExpiresAt: at.adding(milliseconds: 5),
                willAutoRenew: false, ownershipType: .familyShared, store: .appStore),
            Entitlement(
                entitlementID: "lifetime", productID: "lifetime", productType: .nonConsumable,
                bundleID: "com.example.app",
                environment: .sandbox, chainID: "2000", transactionID: "t2", state: .active,
                expiresAt: nil,
                gracePeriodExpiresAt: nil, willAutoRenew: nil, ownershipType: .purchased, store: .googlePlay),
        ]
        struct Reference: Encodable {
            var account_id: String
            var at: String?
            var entitlements: [Representation.EntitlementBody]
            var credits: Int64
        }
        let reference = Reference(
            account_id: account.rawValue, at: RFC3339.format(at),
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

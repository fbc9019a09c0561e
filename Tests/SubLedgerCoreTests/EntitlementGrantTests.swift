import SubLedgerCore
import Testing

/// `EntitlementGrant` and `Ledger.entitlements(_:granted:at:app:)`: a grant competes with a store's entitlement of
/// the same id as two purchases would, and ends at its revocation.
@Suite struct EntitlementGrantTests {
    typealias F = Fixtures
    let alice = Fixtures.alice

    func grant(_ id: String, _ entitlement: String = "pro", from: Int, to: Int, revokedOn: Int? = nil)
        -> EntitlementGrant
    {
        EntitlementGrant(
            grantID: id, account: alice, entitlementID: entitlement, environment: .production,
            startsAt: F.day(from), endsAt: F.day(to), revokedAt: revokedOn.map { F.day($0) })
    }

    func sold(at day: Int) throws -> [Entitlement] {
        let state = try F.state(applying: [
            (F.receipt(by: alice, [F.subscription("s1", chain: "s1", from: 0, to: 30)], observedOn: 0), F.day(0))
        ])
        return state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(day))
    }

    @Test func theLaterEndWinsWhetherStoreOrGrant() throws {
        let app = F.app()
        let shorter = Ledger.entitlements(
            try sold(at: 5), granted: [grant("g1", from: 1, to: 20)], at: F.day(5), app: app)
        #expect(shorter.count == 1)
        #expect(shorter.first?.grantID == nil)
        #expect(shorter.first?.expiresAt == F.day(30))

        let longer = Ledger.entitlements(
            try sold(at: 5), granted: [grant("g1", from: 1, to: 20), grant("g2", from: 2, to: 90)], at: F.day(5),
            app: app)
        #expect(longer.count == 1)
        #expect(longer.first?.grantID == "g2")
        #expect(longer.first?.sourceName == "granted")
        #expect(longer.first?.expiresAt == F.day(90))
    }

    @Test func aRevokedGrantEndsAtItsRevocationAndNamesTheHighestProduct() {
        let app = F.app()
        let revoked = grant("g1", from: 1, to: 60, revokedOn: 10)
        #expect(revoked.accessEndsAt == F.day(10))
        #expect(revoked.contains(F.day(9)))
        #expect(!revoked.contains(F.day(10)))
        let before = Ledger.entitlements([], granted: [revoked], at: F.day(9), app: app)
        #expect(before.map(\.entitlementID) == ["pro"])
        // Of the products carrying pro, premium.monthly has the higher level (group_level 1).
        #expect(before.first?.productID == F.premiumMonthly)
        #expect(before.first?.expiresAt == F.day(10))
        #expect(Ledger.entitlements([], granted: [revoked], at: F.day(10), app: app).isEmpty)
        #expect(
            Ledger.entitlements([], granted: [grant("g2", "gold", from: 1, to: 60)], at: F.day(5), app: app).isEmpty)
    }
}

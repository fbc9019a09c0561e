import Foundation
import SubLedgerCore
import Testing

/// What an apply owes Apple under the app's `write_back` policy (`StoreObligation.owed`, its App Store part): a token
/// for each chain the decision binds to an account whose transactions do not already name it, a finish for each
/// consumable or non-consumable purchase credited, nothing with the policy off or for Family Sharing.
@Suite struct AppleWriteBackTests {
    typealias F = Fixtures

    /// The app with `policy`, and a ledger on it.
    struct Ledger {
        var state: LedgerState
        var app: App

        init(_ policy: WriteBackPolicy) {
            var app = F.app()
            app.writeBack = policy
            self.app = app
            state = LedgerState(catalog: Catalog(apps: [app]))
        }

        /// Applies `input` at `now` and returns what the decision owes Apple.
        mutating func owed(_ input: LedgerInput, now: Instant) throws -> [StoreObligation] {
            let snapshot = LedgerSnapshot(
                chains: input.chainKeys.compactMap { state.chains[$0] },
                accountsByToken: state.accountsByToken[F.bundleID] ?? [:],
                orders: state.orders.keys.sorted().compactMap { state.orders[$0] })
            let decision = try state.apply(input, now: now)
            return StoreObligation.owed(by: decision, on: snapshot, app: app)
        }
    }

    static let everything = WriteBackPolicy(appAccountTokens: true, finishTransactions: true)

    @Test func anUnclaimedChainClaimedByAnAccountOwesItsTokenOnce() throws {
        var ledger = Ledger(Self.everything)
        let period = F.subscription("o1", chain: "o1", from: 0, to: 30)
        #expect(try ledger.owed(F.notification([period], observedOn: 0), now: F.day(0)).isEmpty)
        let claimed = try ledger.owed(F.receipt(by: F.alice, [period], observedOn: 1), now: F.day(1))
        #expect(
            claimed == [
                .setAppAccountToken(
                    chain: ChainKey(environment: .production, chainID: "o1"), bindingSequence: 0,
                    account: F.alice)
            ])
        // The same receipt again binds nothing new, so nothing more is owed.
        #expect(try ledger.owed(F.receipt(by: F.alice, [period], observedOn: 1), now: F.day(2)).isEmpty)
    }

    @Test func aTransferOwesTheNewOwnersTokenWithTheBindingsSequence() throws {
        var ledger = Ledger(WriteBackPolicy(appAccountTokens: true))
        let period = F.subscription("o1", chain: "o1", from: 0, to: 30)
        _ = try ledger.owed(
            F.receipt(
                by: F.alice, [period], renewals: [F.renewal(chain: "o1", willAutoRenew: false, observedOn: 1)],
                observedOn: 1), now: F.day(1))
        let moved = try ledger.owed(
            F.receipt(by: F.bob, [F.subscription("r2", chain: "o1", from: 30, to: 60)], observedOn: 31),
            now: F.day(31))
        #expect(moved.map(\.account) == [F.bob])
        #expect(moved.map(\.payload) == [.appStore(bindingSequence: 1)])
    }

    @Test func aChainWhoseTokenAlreadyNamesTheAccountOwesNothing() throws {
        var ledger = Ledger(Self.everything)
        let token = "0b9d6f52-3c1e-4b7a-9d2f-5e8a7c6b4d3e"
        ledger.state.register(AccountToken(token)!, for: F.alice, bundleID: F.bundleID)
        var period = F.subscription("o1", chain: "o1", from: 0, to: 30)
        period.accountHint = token
        #expect(try ledger.owed(F.notification([period], observedOn: 0), now: F.day(0)).isEmpty)
        #expect(ledger.state.chains.values.first?.header.owner == F.alice)
    }

    @Test func familySharedChainsOweNoToken() throws {
        var ledger = Ledger(Self.everything)
        var period = F.subscription("o1", chain: "o1", from: 0, to: 30)
        period.ownershipType = .familyShared
        #expect(try ledger.owed(F.receipt(by: F.alice, [period], observedOn: 1), now: F.day(1)).isEmpty)
    }

    @Test func consumablesAndNonConsumablesAreFinishedOnceCreditedAndNothingElse() throws {
        var ledger = Ledger(WriteBackPolicy(finishTransactions: true))
        let coins = F.purchase("c1", product: F.coins, on: 0)
        // Unclaimed: not credited to anyone yet, so not finished.
        #expect(try ledger.owed(F.notification([coins], observedOn: 0), now: F.day(0)).isEmpty)
        let owed = try ledger.owed(
            F.receipt(
                by: F.alice,
                [
                    coins, F.purchase("l1", product: F.lifetime, on: 1), F.purchase("p1", product: F.pass, on: 1),
                    F.subscription("o1", chain: "o1", from: 0, to: 30),
                ], observedOn: 1), now: F.day(1))
        #expect(owed.map(\.kind) == [.finishTransaction, .finishTransaction])
        #expect(Set(owed.map(\.transactionID)) == ["c1", "l1"])
        #expect(owed.allSatisfy { $0.account == F.alice && $0.payload == .appStore(bindingSequence: 0) })
    }

    @Test func nothingIsOwedWithThePolicyOff() throws {
        var ledger = Ledger(.off)
        let owed = try ledger.owed(
            F.receipt(
                by: F.alice,
                [F.purchase("c1", product: F.coins, on: 0), F.subscription("o1", chain: "o1", from: 0, to: 30)],
                observedOn: 1), now: F.day(1))
        #expect(owed.isEmpty)
    }

    @Test func thePolicyDecodesFromTheCatalogFormatAndDefaultsToOff() throws {
        func decode(_ writeBack: String) throws -> App {
            let json = """
                {"apps": [{"bundle_id": "com.example.app", \(writeBack)"products": []}]}
                """
            return try #require(try JSONDecoder().decode(Catalog.self, from: Data(json.utf8)).apps.first)
        }
        #expect(try decode("").writeBack == .off)
        #expect(
            try decode(#""write_back": {"app_account_tokens": true}, "#).writeBack
                == WriteBackPolicy(appAccountTokens: true, finishTransactions: false))
        let both = try decode(#""write_back": {"app_account_tokens": true, "finish_transactions": true}, "#)
        #expect(both.writeBack == Self.everything)
        // What the store keeps (the app encoded) reads back the same.
        let stored = try JSONDecoder().decode(App.self, from: JSONEncoder().encode(both))
        #expect(stored.writeBack == Self.everything)
    }
}

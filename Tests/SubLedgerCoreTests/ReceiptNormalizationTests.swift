import SubLedgerCore
import Testing

@Suite struct ReceiptNormalizationTests {
    typealias F = Fixtures

    func receipt(_ transactions: [Transaction], renewals: [RenewalInfo] = [], bundleID: String = Fixtures.bundleID)
        -> ReceiptSnapshot
    {
        ReceiptSnapshot(
            bundleID: bundleID, environment: .production, creationDate: F.day(9), requestDate: F.day(10),
            transactions: transactions, renewalInfo: renewals)
    }

    @Test(arguments: [false, true])
    func duplicatesCollapseToTheMostInformativeCopyWhateverTheOrder(reversed: Bool) throws {
        let plain = F.subscription("s1", chain: "s1", from: 0, to: 30)
        let refunded = F.subscription("s1", chain: "s1", from: 0, to: 30, revokedOn: 5)
        let copies = [plain, refunded, plain]
        let normalized = try receipt(reversed ? copies.reversed() : copies).normalized(in: F.catalog())
        #expect(normalized.transactions == [refunded])
    }

    @Test func laterSignedCopyWinsOverAnEarlierOne() throws {
        var early = F.subscription("s1", chain: "s1", from: 0, to: 30, revokedOn: 5)
        early.signedDate = F.day(6)
        var late = F.subscription("s1", chain: "s1", from: 0, to: 30)
        late.signedDate = F.day(8)
        let normalized = try receipt([late, early]).normalized(in: F.catalog())
        #expect(normalized.transactions == [late])
    }

    @Test func transactionsAreSortedByPurchaseDateThenID() throws {
        let a = F.subscription("b", chain: "o", from: 30, to: 60)
        let b = F.subscription("a", chain: "o2", from: 30, to: 60)
        let c = F.subscription("o", chain: "o", from: 0, to: 30)
        let normalized = try receipt([a, b, c]).normalized(in: F.catalog())
        #expect(normalized.transactions.map(\.transactionID) == ["o", "a", "b"])
        #expect(normalized.observedAt == F.day(10))
    }

    @Test func unknownBundleIDIsRejected() {
        #expect(throws: LedgerError(code: .unknownBundleID, subject: "com.stranger.app")) {
            try receipt([], bundleID: "com.stranger.app").normalized(in: F.catalog())
        }
    }

    @Test func environmentTheAppDoesNotAcceptIsRejected() {
        var xcode = receipt([])
        xcode.environment = .xcode
        #expect(throws: LedgerError(code: .environmentNotAllowed, subject: "Xcode")) {
            try xcode.normalized(in: F.catalog())
        }
    }

    @Test func foreignTransactionsAreFlaggedNotStored() throws {
        let unknown = F.purchase("u1", product: "not.in.catalog", on: 1)
        var otherApp = F.purchase("o1", product: F.lifetime, on: 1)
        otherApp.bundleID = "com.other.app"
        var sandbox = F.purchase("x1", product: F.lifetime, on: 1)
        sandbox.environment = .sandbox
        let kept = F.purchase("k1", product: F.lifetime, on: 0)
        let normalized = try receipt([unknown, unknown, otherApp, sandbox, kept]).normalized(in: F.catalog())
        #expect(normalized.transactions == [kept])
        #expect(Set(normalized.ignored.map(\.reason)) == [.unknownProduct, .otherApp, .environmentMismatch])
        #expect(normalized.ignored.count == 3)

        var state = LedgerState(catalog: F.catalog())
        var input = LedgerInput(receipt: normalized, submittedBy: F.alice)
        input.transactions.append(unknown)
        let decision = try state.apply(input, now: F.day(10))
        #expect(decision.outcome("u1") == .ignored(.unknownProduct))
        #expect(decision.outcome("k1") == .applied(to: F.alice))
    }

    @Test func renewalInfoIsAttachedToItsChainNewestFirst() throws {
        let normalized = try receipt(
            [
                F.subscription("s1", chain: "s1", from: 0, to: 30), F.subscription("s2", chain: "s1", from: 30, to: 60),
                F.purchase("l1", product: F.lifetime, on: 3),
            ],
            renewals: [
                F.renewal(chain: "s1", willAutoRenew: false, observedOn: 10),
                F.renewal(chain: "s1", willAutoRenew: true, observedOn: 9),
                F.renewal(chain: "r9", willAutoRenew: true, observedOn: 10),
            ]
        ).normalized(in: F.catalog())
        let chains = normalized.chains
        #expect(chains.map(\.key.chainID) == ["l1", "r9", "s1"])
        #expect(chains.last?.transactions.map(\.transactionID) == ["s1", "s2"])
        #expect(chains.last?.renewalInfo?.willAutoRenew == false)
        #expect(chains[1].transactions.isEmpty)
    }

    @Test func preIOS7ReceiptWithASingleTransactionNormalizesAndApplies() throws {
        // A pre-iOS 7 receipt: bundle id from `bid`, one top-level transaction, no renewal info, no request date.
        let legacy = ReceiptSnapshot(
            bundleID: F.bundleID, applicationVersion: "1.0", environment: .production, creationDate: F.day(0),
            transactions: [F.purchase("1000000001", product: F.lifetime, on: 0)])
        let normalized = try legacy.normalized(in: F.catalog())
        #expect(normalized.transactions.count == 1)
        #expect(normalized.observedAt == F.day(0))
        var state = LedgerState(catalog: F.catalog())
        try state.apply(LedgerInput(receipt: normalized, submittedBy: F.alice), now: F.day(1))
        #expect(state.entitlementIDs(of: F.alice, at: F.day(1)) == ["lifetime"])
    }
}

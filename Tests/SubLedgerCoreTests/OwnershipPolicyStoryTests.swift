import SubLedgerCore
import Testing

/// The two stories of docs/ownership.md under each `OwnershipPolicy`, with the outcomes that page states per
/// policy; and what stays the same under every policy: arrivals without a submitter never move a chain, and a
/// refund takes away what it granted from whoever owns the chain.
@Suite struct OwnershipPolicyStoryTests {
    typealias F = Fixtures
    static let alice = Fixtures.alice
    static let bob = Fixtures.bob

    /// Story 1 under one policy: what bob's upload of alice's renewal leads to.
    struct RenewalUploadCase: CustomTestStringConvertible, Sendable {
        var policy: OwnershipPolicy
        var renewalOutcome: TransactionOutcome.Result
        var owner: AccountID
        var transferReasons: [BindingChange.Reason]
        var testDescription: String { policy.rawValue }
    }

    static let renewalUploadCases: [RenewalUploadCase] = [
        RenewalUploadCase(
            policy: .activeAutoRenewerKeeps, renewalOutcome: .belongsToAnotherAccount, owner: alice,
            transferReasons: []),
        RenewalUploadCase(
            policy: .latestSubmitterTakes, renewalOutcome: .applied(to: bob), owner: bob,
            transferReasons: [.latestSubmitterTakes]),
        RenewalUploadCase(
            policy: .originalAccountKeeps, renewalOutcome: .belongsToAnotherAccount, owner: alice,
            transferReasons: []),
    ]

    /// Alice bought `s1` (auto-renewing, to day 30) on day 0 and owns its chain.
    static func aliceBoughtOnDayZero(_ policy: OwnershipPolicy) throws -> LedgerState {
        try F.state(
            policy: policy,
            applying: [
                (
                    F.receipt(
                        by: alice, [F.subscription("s1", chain: "s1", from: 0, to: 30)],
                        renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 0)], observedOn: 0),
                    F.day(0)
                )
            ])
    }

    /// Story 1: alice's renewal `s2` is uploaded by bob (day 31) while alice still auto-renews.
    @Test(arguments: renewalUploadCases)
    func renewalUploadedByAnotherAccount(_ story: RenewalUploadCase) throws {
        var state = try Self.aliceBoughtOnDayZero(story.policy)
        let decision = try state.apply(
            F.receipt(
                by: Self.bob,
                [
                    F.subscription("s1", chain: "s1", from: 0, to: 30),
                    F.subscription("s2", chain: "s1", from: 30, to: 60),
                ],
                renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 31)], observedOn: 31),
            now: F.day(31))

        #expect(decision.outcome("s2") == story.renewalOutcome)
        #expect(decision.bindingChanges.map(\.reason) == story.transferReasons)
        #expect(state.chain("s1")?.header.owner == story.owner)
        #expect(state.entry("extend:Production:s2")?.account == story.owner)
        let loser = story.owner == Self.alice ? Self.bob : Self.alice
        #expect(state.entitlements(for: story.owner, bundleID: F.bundleID, at: F.day(45)).first?.expiresAt == F.day(60))
        #expect(state.entitlementIDs(of: loser, at: F.day(45)).isEmpty)
        // A transfer is recorded as the seed rule's transfers are: out of the old owner, into the new.
        let transfers = state.entries.values.filter { $0.kind == .transferIn || $0.kind == .transferOut }
        #expect(transfers.count == story.transferReasons.count * 2)
        if !story.transferReasons.isEmpty {
            #expect(transfers.first { $0.kind == .transferOut }?.account == Self.alice)
            #expect(transfers.first { $0.kind == .transferIn }?.account == Self.bob)
        }
    }

    /// Story 2 under one policy: bob's purchase on day 40 after alice's lapse, then alice's upload on day 71 of
    /// the renewal `s4` of day 70.
    struct ResignupCase: CustomTestStringConvertible, Sendable {
        var policy: OwnershipPolicy
        var purchaseOutcome: TransactionOutcome.Result
        var ownerAfterPurchase: AccountID
        var renewalOutcome: TransactionOutcome.Result
        var ownerAfterUpload: AccountID
        var reasons: [BindingChange.Reason]
        var testDescription: String { policy.rawValue }
    }

    static let resignupCases: [ResignupCase] = [
        ResignupCase(
            policy: .activeAutoRenewerKeeps, purchaseOutcome: .applied(to: bob), ownerAfterPurchase: bob,
            renewalOutcome: .belongsToAnotherAccount, ownerAfterUpload: bob,
            reasons: [.firstClaim, .ownerNotActivelyAutoRenewing]),
        ResignupCase(
            policy: .latestSubmitterTakes, purchaseOutcome: .applied(to: bob), ownerAfterPurchase: bob,
            renewalOutcome: .applied(to: alice), ownerAfterUpload: alice,
            reasons: [.firstClaim, .latestSubmitterTakes, .latestSubmitterTakes]),
        ResignupCase(
            policy: .originalAccountKeeps, purchaseOutcome: .belongsToAnotherAccount, ownerAfterPurchase: alice,
            renewalOutcome: .applied(to: alice), ownerAfterUpload: alice, reasons: [.firstClaim]),
    ]

    /// Story 2: alice turns auto-renew off on day 10 and lapses on day 30; bob subscribes on the same Apple ID on
    /// day 40 (the same chain); alice, signed in again, uploads the device's receipt with bob's renewal on day 71.
    @Test(arguments: resignupCases)
    func purchaseAfterTheOwnersLapseThenTheFormerOwnersUpload(_ story: ResignupCase) throws {
        var state = try Self.aliceBoughtOnDayZero(story.policy)
        try state.apply(
            F.notification(
                [], renewals: [F.renewal(chain: "s1", willAutoRenew: false, observedOn: 10, expirationIntent: 1)],
                observedOn: 10),
            now: F.day(10))
        let purchase = F.subscription("s1", chain: "s1", from: 0, to: 30)
        let bobsPurchase = F.subscription("s3", chain: "s1", from: 40, to: 70)
        let bought = try state.apply(
            F.receipt(
                by: Self.bob, [purchase, bobsPurchase],
                renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 40)], observedOn: 40),
            now: F.day(40))
        #expect(bought.outcome("s3") == story.purchaseOutcome)
        #expect(state.chain("s1")?.header.owner == story.ownerAfterPurchase)
        #expect(state.entitlementIDs(of: story.ownerAfterPurchase, at: F.day(41)) == ["pro"])
        let other = story.ownerAfterPurchase == Self.alice ? Self.bob : Self.alice
        #expect(state.entitlementIDs(of: other, at: F.day(41)).isEmpty)

        let bobsRenewal = F.subscription("s4", chain: "s1", from: 70, to: 100)
        let uploaded = try state.apply(
            F.receipt(
                by: Self.alice, [purchase, bobsPurchase, bobsRenewal],
                renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 71)], observedOn: 71),
            now: F.day(71))
        #expect(uploaded.outcome("s4") == story.renewalOutcome)
        #expect(state.chain("s1")?.header.owner == story.ownerAfterUpload)
        #expect(state.chain("s1")?.bindingChanges.map(\.reason) == story.reasons)
        let owner = story.ownerAfterUpload
        #expect(state.entitlements(for: owner, bundleID: F.bundleID, at: F.day(80)).first?.expiresAt == F.day(100))
        #expect(state.entitlementIDs(of: owner == Self.alice ? Self.bob : Self.alice, at: F.day(80)).isEmpty)
    }

    /// Story 2 in the order Apple usually delivers it: the notification of bob's purchase (no submitter, no
    /// token) arrives before bob's receipt. What the purchase notification does, then what bob's receipt does.
    struct NotifiedResignupCase: CustomTestStringConvertible, Sendable {
        var policy: OwnershipPolicy
        var notifiedOutcome: TransactionOutcome.Result
        var receiptOutcome: TransactionOutcome.Result
        var owner: AccountID
        var reasons: [BindingChange.Reason]
        var testDescription: String { policy.rawValue }
    }

    static let notifiedResignupCases: [NotifiedResignupCase] = [
        NotifiedResignupCase(
            policy: .activeAutoRenewerKeeps, notifiedOutcome: .unclaimed, receiptOutcome: .applied(to: bob),
            owner: bob, reasons: [.firstClaim, .ownerNotActivelyAutoRenewing]),
        NotifiedResignupCase(
            policy: .latestSubmitterTakes, notifiedOutcome: .unclaimed, receiptOutcome: .applied(to: bob),
            owner: bob, reasons: [.firstClaim, .latestSubmitterTakes]),
        NotifiedResignupCase(
            policy: .originalAccountKeeps, notifiedOutcome: .applied(to: alice),
            receiptOutcome: .belongsToAnotherAccount, owner: alice, reasons: [.firstClaim]),
    ]

    /// A purchase made after the owner's subscription lapsed, seen first in a notification, is not the owner's
    /// unless the policy gives the owner everything: it waits unclaimed (alice is not entitled by it), and bob's
    /// receipt then decides as in story 2. Bob's renewal `s4`, notified before bob's receipt too, waits with it.
    @Test(arguments: notifiedResignupCases)
    func purchaseAfterTheOwnersLapseNotifiedBeforeTheBuyersReceipt(_ story: NotifiedResignupCase) throws {
        var state = try Self.aliceBoughtOnDayZero(story.policy)
        try state.apply(
            F.notification(
                [], renewals: [F.renewal(chain: "s1", willAutoRenew: false, observedOn: 10, expirationIntent: 1)],
                observedOn: 10),
            now: F.day(10))
        let purchase = F.subscription("s1", chain: "s1", from: 0, to: 30)
        let bobsPurchase = F.subscription("s3", chain: "s1", from: 40, to: 70, signedOn: 40)
        let notified = try state.apply(
            F.notification(
                [bobsPurchase], renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 40)],
                observedOn: 40),
            now: F.day(40))
        #expect(notified.outcome("s3") == story.notifiedOutcome)
        #expect(notified.bindingChanges.isEmpty)
        #expect(state.chain("s1")?.header.owner == Self.alice)
        let aliceHolds = story.policy.ownerTakesPurchasesAfterLapse
        #expect(state.entitlementIDs(of: Self.alice, at: F.day(41)) == (aliceHolds ? ["pro"] : []))

        let bobsRenewal = F.subscription("s4", chain: "s1", from: 70, to: 100, signedOn: 70)
        let renewed = try state.apply(
            F.notification(
                [bobsRenewal], renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 70)],
                observedOn: 70),
            now: F.day(70))
        #expect(renewed.outcome("s4") == story.notifiedOutcome)
        #expect(state.entitlementIDs(of: Self.alice, at: F.day(71)) == (aliceHolds ? ["pro"] : []))

        let received = try state.apply(
            F.receipt(
                by: Self.bob, [purchase, bobsPurchase, bobsRenewal],
                renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 72)], observedOn: 72),
            now: F.day(72))
        #expect(received.outcome("s4") == story.receiptOutcome)
        #expect(state.chain("s1")?.header.owner == story.owner)
        #expect(state.chain("s1")?.bindingChanges.map(\.reason) == story.reasons)
        #expect(
            state.entitlements(for: story.owner, bundleID: F.bundleID, at: F.day(80)).first?.expiresAt == F.day(100))
        #expect(state.entitlementIDs(of: story.owner == Self.alice ? Self.bob : Self.alice, at: F.day(80)).isEmpty)
        #expect(state.chain("s1")?.transactions.allSatisfy { $0.account != nil } == true)
        #expect(state.entry("extend:Production:s3")?.account == story.owner)
        #expect(state.entry("extend:Production:s4")?.account == story.owner)
    }

    /// The owner's own submission claims a purchase that waited after the owner's lapse: the owner is its
    /// submitter, the first step of the rule.
    @Test func theOwnersOwnSubmissionClaimsAPurchaseThatWaited() throws {
        var state = try Self.aliceBoughtOnDayZero(.activeAutoRenewerKeeps)
        try state.apply(
            F.notification(
                [], renewals: [F.renewal(chain: "s1", willAutoRenew: false, observedOn: 10, expirationIntent: 1)],
                observedOn: 10),
            now: F.day(10))
        let resubscribed = F.subscription("s3", chain: "s1", from: 40, to: 70, signedOn: 40)
        try state.apply(F.notification([resubscribed], observedOn: 40), now: F.day(40))
        #expect(state.entitlementIDs(of: Self.alice, at: F.day(41)).isEmpty)
        // An input with renewal info alone claims nothing either.
        try state.apply(
            F.notification(
                [], renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 40, observedHours: 1)],
                observedOn: 40, observedHours: 1),
            now: F.day(40))
        #expect(state.chain("s1")?.transaction("s3")?.account == nil)
        #expect(state.entitlementIDs(of: Self.alice, at: F.day(41)).isEmpty)
        let submitted = try state.apply(F.receipt(by: Self.alice, [resubscribed], observedOn: 41), now: F.day(41))
        #expect(submitted.outcome("s3") == .applied(to: Self.alice))
        #expect(state.entitlementIDs(of: Self.alice, at: F.day(42)) == ["pro"])
        #expect(state.chain("s1")?.bindingChanges.map(\.reason) == [.firstClaim])
    }

    /// A notification (no submitter, no token) carrying a renewal goes to the chain's owner under every policy,
    /// whether or not the owner auto-renews: it never moves the chain.
    @Test(arguments: OwnershipPolicy.allCases, [true, false])
    func notificationNeverMovesTheChain(policy: OwnershipPolicy, ownerAutoRenews: Bool) throws {
        var state = try F.state(
            policy: policy,
            applying: [
                (
                    F.receipt(
                        by: Self.alice, [F.subscription("s1", chain: "s1", from: 0, to: 30)],
                        renewals: [F.renewal(chain: "s1", willAutoRenew: ownerAutoRenews, observedOn: 0)],
                        observedOn: 0),
                    F.day(0)
                ),
                // Bob's upload makes bob the owner where the policy lets him take the chain.
                (
                    F.receipt(by: Self.bob, [F.subscription("s1", chain: "s1", from: 0, to: 30)], observedOn: 5),
                    F.day(5)
                ),
            ])
        let owner = try #require(state.chain("s1")?.header.owner)
        let changes = state.chain("s1")?.bindingChanges.count
        let notified = try state.apply(
            F.notification(
                [F.subscription("s2", chain: "s1", from: 30, to: 60, signedOn: 30)],
                renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 30)], observedOn: 30),
            now: F.day(30))
        #expect(notified.outcome("s2") == .applied(to: owner))
        #expect(notified.bindingChanges.isEmpty)
        #expect(state.chain("s1")?.header.owner == owner)
        #expect(state.chain("s1")?.bindingChanges.count == changes)
        #expect(state.entry("extend:Production:s2")?.account == owner)
    }

    /// A notification whose transaction carries a token naming another account is attributed to that account
    /// (docs/ownership.md, *Attribution*): the policy then decides as for that account's own submission. Here
    /// alice's chain lapsed and bob bought on the same Apple ID with his token; his purchase's notification
    /// arrives before his app uploads anything.
    @Test(arguments: [
        (OwnershipPolicy.activeAutoRenewerKeeps, Fixtures.bob), (.latestSubmitterTakes, Fixtures.bob),
        (.originalAccountKeeps, Fixtures.alice),
    ])
    func notificationWithAnotherAccountsTokenIsThatAccountsClaim(policy: OwnershipPolicy, owner: AccountID) throws {
        var state = try Self.aliceBoughtOnDayZero(policy)
        try state.apply(
            F.notification(
                [], renewals: [F.renewal(chain: "s1", willAutoRenew: false, observedOn: 10)], observedOn: 10),
            now: F.day(10))
        let token = "0b0b0000-0000-4000-8000-00000000000b"
        state.register(try #require(AccountToken(token)), for: Self.bob, bundleID: F.bundleID)
        let notified = try state.apply(
            F.notification(
                [F.subscription("s3", chain: "s1", from: 40, to: 70, appAccountToken: token, signedOn: 40)],
                renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 40)], observedOn: 40),
            now: F.day(40))
        #expect(state.chain("s1")?.header.owner == owner)
        #expect(notified.outcome("s3") == .applied(to: owner))
        #expect(state.entitlementIDs(of: owner, at: F.day(41)) == ["pro"])
    }

    /// A refund of the latest period ends the owner's entitlement under every policy and moves nothing.
    @Test(arguments: renewalUploadCases)
    func refundEndsTheOwnersEntitlementUnderEveryPolicy(_ story: RenewalUploadCase) throws {
        var state = try Self.aliceBoughtOnDayZero(story.policy)
        try state.apply(
            F.receipt(
                by: Self.bob,
                [
                    F.subscription("s1", chain: "s1", from: 0, to: 30),
                    F.subscription("s2", chain: "s1", from: 30, to: 60),
                ],
                renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 31)], observedOn: 31),
            now: F.day(31))
        #expect(state.entitlementIDs(of: story.owner, at: F.day(34)) == ["pro"])
        let refunded = try state.apply(
            F.notification(
                [F.subscription("s2", chain: "s1", from: 30, to: 60, revokedOn: 35, signedOn: 35)], observedOn: 35),
            now: F.day(35))
        #expect(refunded.bindingChanges.isEmpty)
        #expect(state.chain("s1")?.header.owner == story.owner)
        #expect(state.chain("s1")?.state(at: F.day(36), in: F.app(policy: story.policy)) == .revoked)
        #expect(state.entitlementIDs(of: Self.alice, at: F.day(36)).isEmpty)
        #expect(state.entitlementIDs(of: Self.bob, at: F.day(36)).isEmpty)
    }
}

import SubLedgerCore
import Testing

@Suite struct OwnershipRuleTests {
    struct RuleCase: CustomTestStringConvertible, Sendable {
        var name: String
        var owner: AccountID?
        var claimant: AccountID?
        var productType: ProductType = .autoRenewable
        var policy: OwnershipPolicy = .activeAutoRenewerKeeps
        var ownerAutoRenewing: Bool
        var expected: OwnershipRule.Resolution
        var testDescription: String { name }
    }

    static let alice = Fixtures.alice
    static let bob = Fixtures.bob

    static let ruleCases: [RuleCase] = [
        RuleCase(
            name: "no owner: the claimant becomes owner", owner: nil, claimant: bob, ownerAutoRenewing: false,
            expected: .firstClaim(bob)),
        RuleCase(
            name: "owner is the claimant", owner: alice, claimant: alice, ownerAutoRenewing: true,
            expected: .sameOwner(alice)),
        RuleCase(
            name: "owner still auto-renewing keeps", owner: alice, claimant: bob, ownerAutoRenewing: true,
            expected: .ownerKeeps(alice)),
        RuleCase(
            name: "owner not auto-renewing: transfer", owner: alice, claimant: bob, ownerAutoRenewing: false,
            expected: .transfer(from: alice, to: bob, reason: .ownerNotActivelyAutoRenewing)),
        RuleCase(
            name: "no claimant goes to owner", owner: alice, claimant: nil, ownerAutoRenewing: false,
            expected: .toOwner(alice)),
        RuleCase(
            name: "no claimant, no owner: unattributed", owner: nil, claimant: nil, ownerAutoRenewing: false,
            expected: .unattributed),
        RuleCase(
            name: "original account keeps even when not renewing", owner: alice, claimant: bob,
            policy: .originalAccountKeeps, ownerAutoRenewing: false, expected: .ownerKeeps(alice)),
        RuleCase(
            name: "original account policy still lets the first claim happen", owner: nil, claimant: bob,
            policy: .originalAccountKeeps, ownerAutoRenewing: false, expected: .firstClaim(bob)),
        RuleCase(
            name: "latest submitter takes even from a renewing owner", owner: alice, claimant: bob,
            policy: .latestSubmitterTakes, ownerAutoRenewing: true,
            expected: .transfer(from: alice, to: bob, reason: .latestSubmitterTakes)),
        RuleCase(
            name: "a consumable never moves", owner: alice, claimant: bob, productType: .consumable,
            policy: .latestSubmitterTakes, ownerAutoRenewing: false, expected: .ownerKeeps(alice)),
        RuleCase(
            name: "a non-consumable moves when its owner cannot be renewing", owner: alice, claimant: bob,
            productType: .nonConsumable, ownerAutoRenewing: false,
            expected: .transfer(from: alice, to: bob, reason: .ownerNotActivelyAutoRenewing)),
    ]

    @Test(arguments: ruleCases)
    func ruleResolvesEachBranch(_ rule: RuleCase) {
        let resolution = OwnershipRule.resolve(
            owner: rule.owner, claimant: rule.claimant, productType: rule.productType, policy: rule.policy,
            ownerIsActivelyAutoRenewing: { rule.ownerAutoRenewing })
        #expect(resolution == rule.expected)
    }

    /// Each policy's whole table: a conflict with an owner who auto-renews and one who does not, a first claim,
    /// and an arrival nobody submitted (which never moves a chain).
    static let policyTable: [RuleCase] = OwnershipPolicy.allCases.flatMap { policy -> [RuleCase] in
        let whenRenewing: OwnershipRule.Resolution
        let whenLapsed: OwnershipRule.Resolution
        switch policy {
        case .activeAutoRenewerKeeps:
            whenRenewing = .ownerKeeps(alice)
            whenLapsed = .transfer(from: alice, to: bob, reason: .ownerNotActivelyAutoRenewing)
        case .latestSubmitterTakes:
            whenRenewing = .transfer(from: alice, to: bob, reason: .latestSubmitterTakes)
            whenLapsed = .transfer(from: alice, to: bob, reason: .latestSubmitterTakes)
        case .originalAccountKeeps:
            whenRenewing = .ownerKeeps(alice)
            whenLapsed = .ownerKeeps(alice)
        }
        let name = policy.rawValue
        return [
            RuleCase(
                name: "\(name): owner renewing", owner: alice, claimant: bob, policy: policy, ownerAutoRenewing: true,
                expected: whenRenewing),
            RuleCase(
                name: "\(name): owner lapsed", owner: alice, claimant: bob, policy: policy, ownerAutoRenewing: false,
                expected: whenLapsed),
            RuleCase(
                name: "\(name): first claim", owner: nil, claimant: bob, policy: policy, ownerAutoRenewing: false,
                expected: .firstClaim(bob)),
            RuleCase(
                name: "\(name): nobody submitted, owner lapsed", owner: alice, claimant: nil, policy: policy,
                ownerAutoRenewing: false, expected: .toOwner(alice)),
            RuleCase(
                name: "\(name): nobody submitted, no owner", owner: nil, claimant: nil, policy: policy,
                ownerAutoRenewing: true, expected: .unattributed),
            RuleCase(
                name: "\(name): a consumable stays", owner: alice, claimant: bob, productType: .consumable,
                policy: policy, ownerAutoRenewing: false, expected: .ownerKeeps(alice)),
        ]
    }

    @Test(arguments: policyTable)
    func eachPolicyAnswersItsWholeTable(_ rule: RuleCase) {
        var consulted = false
        let resolution = OwnershipRule.resolve(
            owner: rule.owner, claimant: rule.claimant, productType: rule.productType, policy: rule.policy,
            ownerIsActivelyAutoRenewing: {
                consulted = true
                return rule.ownerAutoRenewing
            })
        #expect(resolution == rule.expected)
        // A policy that says it decides without the owner's renewal never asks (the ingestion then skips reading
        // the chain again from Apple).
        if consulted { #expect(rule.policy.consultsOwnersAutoRenewal) }
    }

    struct RenewingCase: CustomTestStringConvertible, Sendable {
        var name: String
        var transactions: [Transaction]
        var arriving: [Transaction] = []
        var stored: RenewalInfo?
        var incoming: RenewalInfo?
        var expected: Bool
        var testDescription: String { name }
    }

    static let period = Fixtures.subscription("o1", chain: "o1", from: 0, to: 30)

    static let renewingCases: [RenewingCase] = [
        RenewingCase(
            name: "active and auto-renew on", transactions: [period],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: true, observedOn: 1), expected: true),
        RenewingCase(
            name: "grace period and auto-renew on",
            transactions: [Fixtures.subscription("o1", chain: "o1", from: -30, to: 0)],
            stored: Fixtures.renewal(
                chain: "o1", willAutoRenew: true, observedOn: 1, billingRetry: true,
                graceUntil: 16),
            expected: true),
        RenewingCase(
            name: "billing retry and auto-renew on",
            transactions: [Fixtures.subscription("o1", chain: "o1", from: -40, to: -10)],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: true, observedOn: 1, billingRetry: true),
            expected: true),
        RenewingCase(
            name: "active but auto-renew off", transactions: [period],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: false, observedOn: 1), expected: false),
        RenewingCase(
            name: "expired although auto-renew on",
            transactions: [Fixtures.subscription("o1", chain: "o1", from: -40, to: -10)],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: true, observedOn: -20), expected: false),
        RenewingCase(
            name: "latest period refunded",
            transactions: [Fixtures.subscription("o1", chain: "o1", from: 0, to: 30, revokedOn: 2)],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: true, observedOn: 1), expected: false),
        RenewingCase(
            name: "upgraded away",
            transactions: [Fixtures.subscription("o1", chain: "o1", from: 0, to: 30, upgradedOn: 3)],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: true, observedOn: 1), expected: false),
        RenewingCase(name: "no renewal info known", transactions: [period], stored: nil, expected: false),
        RenewingCase(
            name: "owner's own renewal arriving now continues the chain",
            transactions: [Fixtures.subscription("o1", chain: "o1", from: -30, to: 0)],
            arriving: [Fixtures.subscription("r2", chain: "o1", from: 0, to: 30)],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: true, observedOn: -29), expected: true),
        RenewingCase(
            name: "a purchase after the owner's lapse does not continue the chain",
            transactions: [Fixtures.subscription("o1", chain: "o1", from: -40, to: -10)],
            arriving: [Fixtures.subscription("n1", chain: "o1", from: 4, to: 34)],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: true, observedOn: -39), expected: false),
        RenewingCase(
            name: "newer incoming renewal info turns auto-renew off", transactions: [period],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: true, observedOn: 1),
            incoming: Fixtures.renewal(chain: "o1", willAutoRenew: false, observedOn: 4), expected: false),
        RenewingCase(
            name: "incoming renewal info cannot prove renewal the stored one denies", transactions: [period],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: false, observedOn: 1),
            incoming: Fixtures.renewal(chain: "o1", willAutoRenew: true, observedOn: 4), expected: false),
        RenewingCase(
            name: "older incoming renewal info is disregarded", transactions: [period],
            stored: Fixtures.renewal(chain: "o1", willAutoRenew: true, observedOn: 4),
            incoming: Fixtures.renewal(chain: "o1", willAutoRenew: false, observedOn: 1), expected: true),
    ]

    @Test(arguments: renewingCases)
    func stillActivelyAutoRenewingFollowsItsDefinition(_ rule: RenewingCase) {
        let key = ChainKey(environment: .production, chainID: "o1")
        let before = ChainSnapshot(
            header: SubscriptionChain(
                key: key, bundleID: Fixtures.bundleID, productType: .autoRenewable, owner: Fixtures.alice,
                productID: Fixtures.proMonthly, renewalInfo: rule.stored),
            transactions: rule.transactions.map {
                var known = KnownTransaction(transaction: $0, observedAt: Fixtures.day(0), account: Fixtures.alice)
                if let date = $0.revocationDate, !$0.isUpgraded {
                    known.revocations = [
                        ObservedRevocation(
                            revocationDate: date, revocationReason: 0, isFamilySharing: false,
                            lastObservedAt: Fixtures.day(2))
                    ]
                }
                return known
            })
        var merged = before
        merged.transactions += rule.arriving.map {
            KnownTransaction(transaction: $0, observedAt: Fixtures.day(5), account: nil)
        }
        let renewing = OwnershipRule.ownerIsActivelyAutoRenewing(
            before: before, merged: merged, incomingRenewalInfo: rule.incoming, at: Fixtures.day(5),
            in: Fixtures.app())
        #expect(renewing == rule.expected)
    }
}

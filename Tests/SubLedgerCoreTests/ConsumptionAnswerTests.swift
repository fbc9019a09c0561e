import Foundation
import SubLedgerCore
import Testing

/// The answer to Apple's refund question, from ledger facts, the app's reports and its policy.
@Suite struct ConsumptionAnswerTests {
    static let day: Int64 = 86_400_000
    static let now = Instant(millisecondsSince1970: 1_800_000_000_000)
    static let on = ConsumptionPolicy(enabled: true, refundPreference: .decline)
    static let cora = try! AccountID("cora")

    static func facts(
        type: ProductType = .consumable, consent: ConsumptionConsent? = ConsumptionConsent(consented: true, at: now),
        usage: ConsumptionUsage = ConsumptionUsage(), account: AccountID? = cora
    ) -> ConsumptionFacts {
        ConsumptionFacts(productType: type, account: account, consent: consent, usage: usage)
    }

    static func sent(_ decision: ConsumptionDecision) -> ConsumptionInformation? {
        if case .send(let information) = decision { return information }
        return nil
    }

    @Test func nothingIsSentWithoutConsentInForce() {
        let withdrawn = ConsumptionConsent(consented: false, at: Self.now)
        let future = ConsumptionConsent(consented: true, at: Self.now.adding(milliseconds: 1))
        for consent in [nil, withdrawn, future] {
            #expect(
                ConsumptionAnswer.decide(Self.facts(consent: consent), policy: Self.on, now: Self.now)
                    == .skip(.noConsent))
        }
        // Consent without an account owning the purchase cannot be the customer's.
        #expect(ConsumptionAnswer.decide(Self.facts(account: nil), policy: Self.on, now: Self.now) == .skip(.noConsent))
    }

    @Test func aDisabledPolicySendsNothingEvenWithConsent() {
        #expect(ConsumptionAnswer.decide(Self.facts(), policy: .disabled, now: Self.now) == .skip(.disabled))
    }

    @Test func reportedConsumptionIsSentForOneTimePurchases() throws {
        let usage = ConsumptionUsage(consumedMilliunits: 42_000, sampleContentProvided: true)
        let sent = try #require(
            Self.sent(ConsumptionAnswer.decide(Self.facts(usage: usage), policy: Self.on, now: Self.now)))
        #expect(sent.customerConsented)
        #expect(sent.deliveryStatus == .delivered)
        #expect(sent.consumptionMilliunits == 42_000)
        #expect(sent.consumptionStatus == 2)
        #expect(sent.sampleContentProvided)
        #expect(sent.refundPreference == .decline)
    }

    @Test func undeliveredPurchasesReportZeroConsumption() throws {
        let usage = ConsumptionUsage(consumedMilliunits: 42_000, deliveryStatus: .undeliveredServerOutage)
        let sent = try #require(
            Self.sent(ConsumptionAnswer.decide(Self.facts(usage: usage), policy: Self.on, now: Self.now)))
        #expect(sent.deliveryStatus == .undeliveredServerOutage)
        #expect(sent.consumptionMilliunits == 0)
        #expect(sent.consumptionStatus == 1)
    }

    @Test func autoRenewablesLeaveThePercentageToApple() throws {
        let usage = ConsumptionUsage(consumedMilliunits: 42_000)
        let sent = try #require(
            Self.sent(
                ConsumptionAnswer.decide(Self.facts(type: .autoRenewable, usage: usage), policy: Self.on, now: Self.now)
            ))
        #expect(sent.consumptionMilliunits == nil)
    }

    /// Asking for a prorated refund: an auto-renewable's answer leaves the percentage to Apple (Apple refuses
    /// one with `GRANT_PRORATED`), a consumable's carries the reported consumption.
    @Test func aProratedRefundPreferenceFollowsApplesRules() throws {
        let policy = ConsumptionPolicy(enabled: true, refundPreference: .grantProrated)
        let usage = ConsumptionUsage(consumedMilliunits: 30_000)
        let subscription = try #require(
            Self.sent(
                ConsumptionAnswer.decide(Self.facts(type: .autoRenewable, usage: usage), policy: policy, now: Self.now))
        )
        #expect(subscription.refundPreference == .grantProrated)
        #expect(subscription.consumptionMilliunits == nil)
        let coins = try #require(
            Self.sent(ConsumptionAnswer.decide(Self.facts(usage: usage), policy: policy, now: Self.now)))
        #expect(coins.consumptionMilliunits == 30_000)
    }

    @Test func sampleContentDefaultsToThePolicy() throws {
        let policy = ConsumptionPolicy(enabled: true, sampleContentProvided: true)
        let sent = try #require(Self.sent(ConsumptionAnswer.decide(Self.facts(), policy: policy, now: Self.now)))
        #expect(sent.sampleContentProvided)
        #expect(sent.consumptionMilliunits == nil)
        #expect(sent.consumptionStatus == 0)
    }

    @Test func bucketsFollowApplesTables() {
        let start = Self.now
        #expect(ConsumptionAnswer.tenureBucket(from: nil, to: start) == 0)
        #expect(ConsumptionAnswer.tenureBucket(from: start, to: start) == 1)
        #expect(ConsumptionAnswer.tenureBucket(from: start, to: start.adding(milliseconds: 5 * Self.day)) == 2)
        #expect(ConsumptionAnswer.tenureBucket(from: start, to: start.adding(milliseconds: 100 * Self.day)) == 5)
        #expect(ConsumptionAnswer.tenureBucket(from: start, to: start.adding(milliseconds: 400 * Self.day)) == 7)
        #expect(ConsumptionAnswer.dollarsBucket(nil) == 0)
        #expect(ConsumptionAnswer.dollarsBucket(0) == 1)
        #expect(ConsumptionAnswer.dollarsBucket(990) == 2)
        #expect(ConsumptionAnswer.dollarsBucket(50_000) == 3)
        #expect(ConsumptionAnswer.dollarsBucket(1_999_990) == 6)
        #expect(ConsumptionAnswer.dollarsBucket(2_000_000) == 7)
        #expect(ConsumptionAnswer.playTimeBucket(minutes: nil) == 0)
        #expect(ConsumptionAnswer.playTimeBucket(minutes: 4) == 1)
        #expect(ConsumptionAnswer.playTimeBucket(minutes: 59) == 2)
        #expect(ConsumptionAnswer.playTimeBucket(minutes: 1_440) == 5)
        #expect(ConsumptionAnswer.playTimeBucket(minutes: 100_000) == 7)
        #expect(ConsumptionAnswer.consumptionStatus(100_000) == 3)
    }

    @Test func lifetimeDollarsNeedEveryPriceInUSD() throws {
        var facts = Self.facts()
        facts.purchases = [
            .init(price: 9_990, currency: "USD", refunded: false),
            .init(price: 49_990, currency: "USD", refunded: true),
        ]
        let sent = try #require(Self.sent(ConsumptionAnswer.decide(facts, policy: Self.on, now: Self.now)))
        #expect(sent.lifetimeDollarsPurchased == 3)  // 59.98 USD
        #expect(sent.lifetimeDollarsRefunded == 2)  // 49.99 USD
        facts.purchases.append(.init(price: 1_000, currency: "EUR", refunded: false))
        let unknown = try #require(Self.sent(ConsumptionAnswer.decide(facts, policy: Self.on, now: Self.now)))
        #expect(unknown.lifetimeDollarsPurchased == 0)
    }

    @Test func usageReportsAreValidatedFieldByField() throws {
        let usage = try ConsumptionUsage.validated(
            consumptionPercentage: 12.345, playTimeMinutes: 3, sampleContentProvided: nil,
            deliveryStatus: "undelivered_wrong_item")
        #expect(usage.consumedMilliunits == 12_345)
        #expect(usage.deliveryStatus == .undeliveredWrongItem)
        #expect(throws: ConsumptionInputError.self) {
            try ConsumptionUsage.validated(
                consumptionPercentage: nil, playTimeMinutes: nil, sampleContentProvided: nil, deliveryStatus: nil)
        }
        #expect(throws: ConsumptionInputError.self) {
            try ConsumptionUsage.validated(
                consumptionPercentage: .nan, playTimeMinutes: nil, sampleContentProvided: nil, deliveryStatus: nil)
        }
        #expect(throws: ConsumptionInputError.self) { try ConsumptionUsage.validatedTransactionID("12a") }
        #expect(try ConsumptionUsage.validatedTransactionID("2000000123") == "2000000123")
    }

    @Test func laterReportsReplaceOnlyTheFieldsTheyState() {
        let first = ConsumptionUsage(consumedMilliunits: 10_000, playTimeMinutes: 5)
        let merged = first.updated(with: ConsumptionUsage(consumedMilliunits: 20_000))
        #expect(merged == ConsumptionUsage(consumedMilliunits: 20_000, playTimeMinutes: 5))
    }

    @Test func theCatalogPolicyDecodesValidatesAndRoundTrips() throws {
        func app(_ consumption: String) throws -> App {
            try JSONDecoder().decode(
                App.self, from: Data(#"{"bundle_id": "com.example.app", "consumption": \#(consumption)}"#.utf8))
        }
        let policy = try app(#"{"enabled": true, "refund_preference": "grant", "endpoint": "v1"}"#).consumption
        #expect(policy == ConsumptionPolicy(enabled: true, refundPreference: .grant, endpoint: .v1))
        let absent = try JSONDecoder().decode(App.self, from: Data(#"{"bundle_id": "com.example.app"}"#.utf8))
        #expect(absent.consumption == .disabled)
        #expect(
            try JSONDecoder().decode(App.self, from: JSONEncoder().encode(try app(#"{"enabled": true}"#))).consumption
                .enabled)
        let prorated = try app(#"{"enabled": true, "refund_preference": "grant_prorated"}"#).consumption
        #expect(prorated.refundPreference == .grantProrated)
        // V1 cannot ask for a prorated refund: the catalog says so instead of sending something else.
        for bad in [
            #"{"refund_preference": "maybe"}"#, #"{"endpoint": "v3"}"#,
            #"{"refund_preference": "grant_prorated", "endpoint": "v1"}"#,
        ] {
            #expect {
                try app(bad)
            } throws: { error in
                (error as? CatalogError)?.code == .invalidConsumptionPolicy
            }
        }
    }
}

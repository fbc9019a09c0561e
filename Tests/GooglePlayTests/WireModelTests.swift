import Foundation
import GooglePlay
import SubLedgerCore
import Testing

@Suite struct SubscriptionPurchaseV2Tests {
    static let body = """
        {
          "kind": "androidpublisher#subscriptionPurchaseV2",
          "regionCode": "US",
          "startTime": "2025-01-01T00:00:00.123Z",
          "subscriptionState": "SUBSCRIPTION_STATE_ACTIVE",
          "latestOrderId": "GPA.3300-0000-0000-00001..1",
          "linkedPurchaseToken": "old-token",
          "acknowledgementState": "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
          "testPurchase": {},
          "externalAccountIdentifiers": {
            "obfuscatedExternalAccountId": "account-7",
            "obfuscatedExternalProfileId": "profile-1"
          },
          "lineItems": [
            {
              "productId": "pro.monthly",
              "expiryTime": "2025-02-01T00:00:00Z",
              "autoRenewingPlan": {
                "autoRenewEnabled": true,
                "recurringPrice": {"currencyCode": "USD", "units": "9", "nanos": 990000000}
              },
              "offerDetails": {"basePlanId": "monthly", "offerId": "intro", "offerTags": ["a"]},
              "offerPhase": {"freeTrial": {}},
              "latestSuccessfulOrderId": "GPA.3300-0000-0000-00001..1"
            },
            {"productId": "addon", "expiryTime": "2025-03-01T00:00:00Z", "prepaidPlan": {}}
          ],
          "somethingGoogleAddsLater": {"x": 1}
        }
        """

    @Test func decodesGoogleFieldsAndReadsTimes() throws {
        let purchase = try JSONDecoder().decode(SubscriptionPurchaseV2.self, from: Data(Self.body.utf8))
        #expect(purchase.subscriptionState == .active)
        #expect(purchase.acknowledgementState == .acknowledged)
        #expect(purchase.isTestPurchase)
        #expect(purchase.linkedPurchaseToken == "old-token")
        #expect(purchase.externalAccountIdentifiers?.obfuscatedExternalAccountId == "account-7")
        #expect(purchase.externalAccountIdentifiers?.obfuscatedExternalProfileId == "profile-1")
        #expect(purchase.start == Instant(millisecondsSince1970: 1_735_689_600_123))
        // The latest expiry of the items.
        #expect(purchase.expiry == RFC3339.parse("2025-03-01T00:00:00Z"))
        let item = try #require(purchase.lineItems?.first)
        #expect(item.offerDetails?.basePlanId == "monthly")
        #expect(item.offerPhase?.kind == .freeTrial)
        #expect(purchase.lineItems?.last?.offerPhase == nil)
        #expect(item.autoRenewingPlan?.recurringPrice?.micros == 9_990_000)
        #expect(purchase.latestOrderId == "GPA.3300-0000-0000-00001..1")
    }

    @Test func unknownStateIsKeptAndWrittenBack() throws {
        let text = #"{"subscriptionState":"SUBSCRIPTION_STATE_SOMETHING_NEW","lineItems":[]}"#
        let purchase = try JSONDecoder().decode(SubscriptionPurchaseV2.self, from: Data(text.utf8))
        #expect(purchase.subscriptionState?.rawValue == "SUBSCRIPTION_STATE_SOMETHING_NEW")
        #expect(!SubscriptionState.known.contains(purchase.subscriptionState!))
        let again = try JSONDecoder().decode(
            SubscriptionPurchaseV2.self, from: try JSONEncoder().encode(purchase))
        #expect(again == purchase)
    }

    @Test func canceledStateContextNamesItsInitiator() throws {
        for (member, initiator) in [
            ("userInitiatedCancellation", CanceledStateContext.Initiator.user),
            ("systemInitiatedCancellation", .system), ("developerInitiatedCancellation", .developer),
            ("replacementCancellation", .replacement),
        ] {
            let text = #"{"canceledStateContext":{"\#(member)":{}}}"#
            let purchase = try JSONDecoder().decode(SubscriptionPurchaseV2.self, from: Data(text.utf8))
            #expect(purchase.canceledStateContext?.initiator == initiator)
        }
    }

    @Test func pausedStateContextReadsAutoResumeTime() throws {
        let text = #"{"pausedStateContext":{"autoResumeTime":"2025-04-01T10:00:00.5Z"}}"#
        let purchase = try JSONDecoder().decode(SubscriptionPurchaseV2.self, from: Data(text.utf8))
        #expect(purchase.pausedStateContext?.autoResume == RFC3339.parse("2025-04-01T10:00:00.500Z"))
    }
}

@Suite struct OneTimePurchaseTests {
    @Test func productPurchaseReadsIntegerStatesAndStringMillis() throws {
        let text = """
            {"kind":"androidpublisher#productPurchase","purchaseTimeMillis":"1735689600000","purchaseState":0,
             "consumptionState":1,"orderId":"GPA.1","purchaseType":0,"acknowledgementState":1,
             "productId":"coins","quantity":3,"obfuscatedExternalAccountId":"acct","regionCode":"US",
             "refundableQuantity":2}
            """
        let purchase = try JSONDecoder().decode(ProductPurchase.self, from: Data(text.utf8))
        #expect(purchase.purchaseTime == Instant(millisecondsSince1970: 1_735_689_600_000))
        #expect(purchase.isPurchased && purchase.isConsumed && purchase.isAcknowledged && purchase.isTestPurchase)
        #expect(purchase.quantity == 3)
        #expect(purchase.refundableQuantity == 2)
    }

    @Test func productPurchaseWithoutPurchaseTypeIsNoTest() throws {
        let purchase = try JSONDecoder().decode(
            ProductPurchase.self, from: Data(#"{"purchaseState":1,"purchaseTimeMillis":"x"}"#.utf8))
        #expect(!purchase.isTestPurchase)
        #expect(purchase.isCanceled)
        #expect(purchase.purchaseTime == nil)
    }

    @Test func productPurchaseV2ReadsLineItemsAndStates() throws {
        let text = """
            {"kind":"androidpublisher#productPurchaseV2","orderId":"GPA.2",
             "purchaseCompletionTime":"2025-01-02T03:04:05Z",
             "purchaseStateContext":{"purchaseState":"PURCHASED"},
             "acknowledgementState":"ACKNOWLEDGEMENT_STATE_PENDING",
             "testPurchaseContext":{"fopType":"TEST"},
             "productLineItem":[{"productId":"coins","productOfferDetails":{"quantity":2,"refundableQuantity":2,
               "consumptionState":"CONSUMPTION_STATE_YET_TO_BE_CONSUMED","purchaseOptionId":"buy"}}]}
            """
        let purchase = try JSONDecoder().decode(ProductPurchaseV2.self, from: Data(text.utf8))
        #expect(purchase.purchaseStateContext?.purchaseState == .purchased)
        #expect(purchase.acknowledgementState == .pending)
        #expect(purchase.testPurchaseContext?.fopType == "TEST")
        #expect(purchase.productLineItem?.first?.productOfferDetails?.consumptionState == .yetToBeConsumed)
        #expect(purchase.purchaseCompletion == RFC3339.parse("2025-01-02T03:04:05Z"))
    }

    @Test func voidedPurchasesPageReadsReasonsAndContinuation() throws {
        let text = """
            {"voidedPurchases":[{"kind":"androidpublisher#voidedPurchase","purchaseToken":"t1",
              "purchaseTimeMillis":"1000","voidedTimeMillis":"2000","orderId":"GPA.1","voidedSource":2,
              "voidedReason":8},{"purchaseToken":"t2","voidedReason":42}],
             "tokenPagination":{"nextPageToken":"next"},"pageInfo":{"totalResults":2,"resultPerPage":2,"startIndex":0}}
            """
        let page = try JSONDecoder().decode(VoidedPurchasesListResponse.self, from: Data(text.utf8))
        let first = try #require(page.voidedPurchases?.first)
        #expect(first.source == .google)
        #expect(first.reason == .unacknowledgedPurchase)
        #expect(first.voidedTime == Instant(millisecondsSince1970: 2000))
        #expect(page.voidedPurchases?.last?.reason?.rawValue == 42)
        #expect(page.tokenPagination?.nextPageToken == "next")
    }
}

@Suite struct MoneyTests {
    @Test func unitsAndNanosBecomeMicrosAndMilliunits() {
        #expect(Money(currencyCode: "USD", units: "9", nanos: 990_000_000).micros == 9_990_000)
        #expect(Money(currencyCode: "USD", units: "9", nanos: 990_000_000).milliunits == 9_990)
        #expect(Money(currencyCode: "USD", units: "-1", nanos: -500_000_000).micros == -1_500_000)
        #expect(Money(currencyCode: "JPY", units: "120", nanos: nil).micros == 120_000_000)
        #expect(Money(currencyCode: "USD", units: nil, nanos: 1_500).micros == 1)
    }

    @Test func invalidOrOverflowingAmountsAreNilNotACrash() {
        // nanos of the other sign than units
        #expect(Money(currencyCode: "USD", units: "1", nanos: -1).micros == nil)
        // nanos out of range
        #expect(Money(currencyCode: "USD", units: "0", nanos: 1_000_000_000).micros == nil)
        // units times a million does not fit Int64
        #expect(Money(currencyCode: "USD", units: "9223372036854775807", nanos: nil).micros == nil)
        #expect(Money(currencyCode: "USD", units: "99999999999999999999999", nanos: nil).micros == nil)
        #expect(Money(currencyCode: "USD", units: "1e3", nanos: nil).micros == nil)
        #expect(Money(currencyCode: "USD", units: "", nanos: nil).micros == nil)
        #expect(Money(currencyCode: "USD", units: "-", nanos: nil).micros == nil)
    }

    @Test func microsRoundTripThroughUnitsAndNanos() {
        for micros: Int64 in [0, 1, 999_999, 1_000_000, 9_990_000, -2_500_001, .max, .min] {
            let money = Money(currencyCode: "EUR", micros: micros)
            #expect(money.micros == micros)
        }
    }

    @Test func milliunitsRoundHalfAwayFromZeroWithoutTrapping() {
        #expect(Money.milliunits(fromMicros: 1_499) == 1)
        #expect(Money.milliunits(fromMicros: 1_500) == 2)
        #expect(Money.milliunits(fromMicros: -1_500) == -2)
        #expect(Money.milliunits(fromMicros: .max) == Int64.max / 1000 + 1)
        #expect(Money.milliunits(fromMicros: .min) == Int64.min / 1000 - 1)
    }

    @Test func int64TextIsReadStrictly() {
        #expect(GoogleInt64.parse("9223372036854775807") == .max)
        #expect(GoogleInt64.parse("-9223372036854775808") == .min)
        #expect(GoogleInt64.parse("9223372036854775808") == nil)
        #expect(GoogleInt64.parse("+1") == nil)
        #expect(GoogleInt64.parse(" 1") == nil)
        #expect(GoogleInt64.parse("١") == nil)
    }
}

import Foundation
import GooglePlay
import SubLedgerCore
import Testing

/// Google's `Order` resource read tolerantly, and mapped to the ledger's transaction with the token's own answer.
@Suite struct GooglePlayOrderTests {
    static let body = """
        {
          "orderId": "GPA.3300-0000-0000-00001..1",
          "purchaseToken": "token-2",
          "state": "PROCESSED",
          "createTime": "2025-03-01T00:00:00Z",
          "lastEventTime": "2025-03-01T00:00:05Z",
          "total": {"currencyCode": "EUR", "units": "4", "nanos": 990000000},
          "tax": {"currencyCode": "EUR", "units": "0", "nanos": 800000000},
          "buyerAddress": {"buyerCountry": "DE"},
          "salesChannel": "SOMETHING_NEW",
          "lineItems": [
            {
              "productId": "pro.monthly",
              "productTitle": "Pro",
              "listingPrice": {"currencyCode": "EUR", "units": "4", "nanos": 190000000},
              "total": {"currencyCode": "EUR", "units": "4", "nanos": 990000000},
              "subscriptionDetails": {
                "basePlanId": "monthly",
                "offerId": "intro",
                "offerPhase": "BASE",
                "servicePeriodStartTime": "2025-03-01T00:00:00Z",
                "servicePeriodEndTime": "2025-04-01T00:00:00Z"
              }
            }
          ]
        }
        """

    static let purchase = SubscriptionPurchaseV2(
        regionCode: "DE", startTime: "2025-01-01T00:00:00Z", linkedPurchaseToken: "token-1",
        testPurchase: EmptyContext(),
        externalAccountIdentifiers: ExternalAccountIdentifiers(
            obfuscatedExternalAccountId: "account-7", obfuscatedExternalProfileId: nil))

    static func order(_ change: (inout GooglePlayOrder) -> Void = { _ in }) throws -> GooglePlayOrder {
        var order = try JSONDecoder().decode(GooglePlayOrder.self, from: Data(body.utf8))
        change(&order)
        return order
    }

    @Test func unknownFieldsAndEnumerationValuesAreKept() throws {
        let order = try Self.order {
            $0.state = try? JSONDecoder().decode(OrderState.self, from: Data("\"ON_ITS_WAY\"".utf8))
        }
        #expect(order.state?.rawValue == "ON_ITS_WAY")
        let encoded = String(decoding: try JSONEncoder().encode(order), as: UTF8.self)
        #expect(encoded.contains("\"ON_ITS_WAY\""))
        #expect(try Self.order().lineItems?.first?.subscriptionDetails?.offerPhase == .base)
    }

    @Test func anOrderIsTheTransactionOfThePeriodItPaidFor() throws {
        let transaction = try Self.order().transaction(
            purchaseToken: "token-2", of: Self.purchase, packageName: "com.example.app",
            chainID: "GPA.3300-0000-0000-00000")
        #expect(transaction.transactionID == "GPA.3300-0000-0000-00001..1")
        #expect(transaction.chainID == "GPA.3300-0000-0000-00000")
        #expect(transaction.purchaseDate == RFC3339.parse("2025-03-01T00:00:00Z"))
        #expect(transaction.expiresDate == RFC3339.parse("2025-04-01T00:00:00Z"))
        #expect(transaction.originalPurchaseDate == RFC3339.parse("2025-01-01T00:00:00Z"))
        #expect(transaction.price == 4_990)
        #expect(transaction.currency == "EUR")
        #expect(!transaction.isTrialPeriod)
        #expect(transaction.environment == .sandbox)
        #expect(transaction.purchaseToken == "token-2")
        #expect(transaction.replacedPurchaseToken == "token-1")
        #expect(transaction.accountHint == "account-7")
        #expect(transaction.offerIdentifier == "intro")

        let trial = try Self.order {
            $0.lineItems?[0].subscriptionDetails?.offerPhase = .freeTrial
            $0.total = Money(currencyCode: "EUR", units: "0", nanos: nil)
        }.transaction(purchaseToken: "token-2", of: Self.purchase, packageName: "com.example.app", chainID: "c")
        #expect(trial.isTrialPeriod)
        #expect(trial.price == 0)
    }

    @Test func ordersNeverPaidOrOutOfRangeAreRefused() throws {
        func refusal(_ change: (inout GooglePlayOrder) -> Void) throws -> GooglePlayMappingError? {
            let order = try Self.order(change)
            do throws(GooglePlayMappingError) {
                _ = try order.transaction(
                    purchaseToken: "token-2", of: Self.purchase, packageName: "com.example.app", chainID: "c")
                return nil
            } catch {
                return error
            }
        }
        #expect(try refusal { $0.state = .pending }?.code == .notPurchased)
        #expect(try refusal { $0.state = .canceled }?.code == .notPurchased)
        #expect(try refusal { $0.state = nil }?.code == .missingField)
        #expect(try refusal { $0.purchaseToken = "another-token" }?.field == "purchaseToken")
        #expect(try refusal { $0.orderId = "GPA.1..x" }?.code == .invalidField)
        #expect(try refusal { $0.total = Money(currencyCode: "EUR", units: "-1", nanos: nil) }?.field == "total")
        #expect(try refusal { $0.total = Money(currencyCode: "euro", units: "1", nanos: nil) }?.code == .invalidField)
        #expect(
            try refusal { $0.lineItems?[0].subscriptionDetails?.servicePeriodEndTime = "2025-02-01T00:00:00Z" }?
                .code == .invalidField)
        #expect(
            try refusal { $0.lineItems?[0].subscriptionDetails?.servicePeriodStartTime = "10000-01-01T00:00:00Z" }?
                .code == .invalidField)
        #expect(try refusal { $0.lineItems?[0].subscriptionDetails = nil }?.code == .missingField)
        // Refunded orders were paid: they are transactions (their refund is a voided purchase).
        #expect(try refusal { $0.state = .refunded } == nil)
    }
}

import AppStore
import Foundation
import SubLedgerCore
import Testing

/// Every JSON in Apple's `models/` vectors decodes into this module's models with the key fields intact.
@Suite struct AppleModelDecodingTests {
    static let decoders: [String: @Sendable (Data) throws -> Void] = [
        "apiException": { data in
            let body = try JSONDecoder().decode(ServerAPIErrorBody.self, from: data)
            #expect(body.errorCode == 5_000_000)
            #expect(body.errorMessage == "An unknown error occurred.")
        },
        "apiTooManyRequestsException": { data in
            let body = try JSONDecoder().decode(ServerAPIErrorBody.self, from: data)
            #expect(body.errorCode == 4_290_000)
        },
        "invalidTransactionIdError": { data in
            let body = try JSONDecoder().decode(ServerAPIErrorBody.self, from: data)
            #expect(body.errorCode == 4_000_006)
        },
        "transactionIdNotFoundError": { data in
            let body = try JSONDecoder().decode(ServerAPIErrorBody.self, from: data)
            #expect(body.errorCode == 4_040_010)
        },
        "getAllSubscriptionStatusesResponse": { data in
            let body = try JSONDecoder().decode(StatusResponse.self, from: data)
            #expect(body.rawEnvironment == "LocalTesting")
            #expect(body.bundleID == "com.example")
            #expect(body.appAppleID == 5_454_545)
            #expect(body.data?.count == 2)
            #expect(body.data?[0].subscriptionGroupIdentifier == "sub_group_one")
            #expect(body.data?[0].lastTransactions?.map(\.rawStatus) == [1, 5])
            #expect(body.data?[0].lastTransactions?[1].originalTransactionID == "5314314134")
            #expect(body.data?[1].lastTransactions?[0].signedRenewalInfo == "signed_renewal_three")
        },
        "getNotificationHistoryResponse": { data in
            let body = try JSONDecoder().decode(NotificationHistoryResponse.self, from: data)
            #expect(body.paginationToken == "57715481-805a-4283-8499-1c19b5d6b20a")
            #expect(body.hasMore == true)
            #expect(body.notificationHistory?.count == 2)
            #expect(body.notificationHistory?[0].sendAttempts?.map(\.sendAttemptResult) == ["NO_RESPONSE", "SUCCESS"])
            #expect(body.notificationHistory?[1].sendAttempts?[0].attemptDate == 1_698_148_800_000)
            #expect(body.notificationHistory?[1].signedPayload == "signed_payload_two")
        },
        "getRefundHistoryResponse": { data in
            let body = try JSONDecoder().decode(RefundHistoryResponse.self, from: data)
            #expect(body.signedTransactions == ["signed_transaction_one", "signed_transaction_two"])
            #expect(body.revision == "revision_output")
            #expect(body.hasMore == true)
        },
        "lookupOrderIdResponse": { data in
            let body = try JSONDecoder().decode(OrderLookupResponse.self, from: data)
            #expect(body.status == 1)
            #expect(body.signedTransactions?.count == 2)
        },
        "signedNotification": { data in
            let body = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: data)
            #expect(body.notificationType == .subscribed)
            #expect(body.subtype == .initialBuy)
            #expect(body.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
            #expect(body.version == "2.0")
            #expect(body.signedDate == 1_698_148_900_000)
            #expect(body.data?.environment == .localTesting)
            #expect(body.data?.appAppleID == 41234)
            #expect(body.data?.bundleVersion == "1.2.3")
            #expect(body.data?.signedTransactionInfo == "signed_transaction_info_value")
            #expect(body.data?.signedRenewalInfo == "signed_renewal_info_value")
            #expect(body.data?.status == .active)
        },
        "signedSummaryNotification": { data in
            let body = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: data)
            #expect(body.notificationType == .renewalExtension)
            #expect(body.subtype == .summary)
            #expect(body.data == nil)
            #expect(body.summary?.environment == .localTesting)
            #expect(body.summary?.productID == "com.example.product")
            #expect(body.summary?.requestIdentifier == "efb27071-45a4-4aca-9854-2a1e9146f265")
            #expect(body.summary?.storefrontCountryCodes == ["CAN", "USA", "MEX"])
            #expect(body.summary?.succeededCount == 5)
            #expect(body.summary?.failedCount == 2)
        },
        "signedRenewalInfo": { data in
            let body = try JSONDecoder().decode(JWSRenewalInfoDecodedPayload.self, from: data)
            #expect(body.expirationIntent == .customerCancelled)
            #expect(body.originalTransactionID == "12345")
            #expect(body.autoRenewProductID == "com.example.product.2")
            #expect(body.autoRenewStatus == .on)
            #expect(body.isInBillingRetryPeriod == true)
            #expect(body.priceIncreaseStatus == .customerHasNotResponded)
            #expect(body.offerType == .promotionalOffer)
            #expect(body.offerDiscountType == .payAsYouGo)
            #expect(body.eligibleWinBackOfferIDs == ["eligible1", "eligible2"])
            #expect(body.renewalPrice == 9990)
            #expect(body.appTransactionID == "71134")
            let core = try body.coreRenewalInfo()
            #expect(core.willAutoRenew)
            #expect(core.observedAt == Instant(millisecondsSince1970: 1_698_148_800_000))
            #expect(core.gracePeriodExpiresDate == Instant(millisecondsSince1970: 1_698_148_900_000))
            #expect(core.renewalDate == Instant(millisecondsSince1970: 1_698_148_850_000))
            #expect(core.renewalPrice == 9990)
            #expect(core.currency == "USD")
            #expect(core.offerDiscountType == "PAY_AS_YOU_GO")
            #expect(core.environment == .localTesting)
            #expect(core.expirationIntent == 1)
            #expect(core.offerIdentifier == "abc.123")
        },
        "signedTransaction": { data in
            let body = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: data)
            try Self.expectCommonTransactionFields(body)
            #expect(body.rawBillingPlanType == "MONTHLY")
        },
        "signedTransactionWithRevocation": { data in
            let body = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: data)
            try Self.expectCommonTransactionFields(body)
            #expect(body.revocationType == .refundProrated)
            #expect(body.revocationPercentage == 50000)
        },
        "transactionHistoryResponse": { data in
            let body = try JSONDecoder().decode(HistoryResponse.self, from: data)
            #expect(body.revision == "revision_output")
            #expect(body.hasMore == true)
            #expect(body.bundleID == "com.example")
            #expect(body.appAppleID == 323_232)
            #expect(body.rawEnvironment == "LocalTesting")
            #expect(body.signedTransactions == ["signed_transaction_value", "signed_transaction_value2"])
        },
        "transactionInfoResponse": { data in
            let body = try JSONDecoder().decode(TransactionInfoResponse.self, from: data)
            #expect(body.signedTransactionInfo == "signed_transaction_info_value")
        },
    ]

    static func expectCommonTransactionFields(_ body: JWSTransactionDecodedPayload) throws {
        #expect(body.transactionID == "23456")
        #expect(body.originalTransactionID == "12345")
        #expect(body.webOrderLineItemID == "34343")
        #expect(body.type == .autoRenewableSubscription)
        #expect(body.inAppOwnershipType == .purchased)
        #expect(body.revocationReason == .refundedDueToIssue)
        #expect(body.offerType == .introductoryOffer)
        #expect(body.transactionReason == .purchase)
        #expect(body.environment == .localTesting)
        #expect(body.storefrontID == "143441")
        #expect(body.offerPeriod == "P1Y")
        let core = try body.coreTransaction(source: .serverAPI)
        #expect(core.transactionID == "23456")
        #expect(core.chainID == "12345")
        #expect(core.productID == "com.example.product")
        #expect(core.bundleID == "com.example")
        #expect(core.purchaseDate == Instant(millisecondsSince1970: 1_698_148_900_000))
        #expect(core.originalPurchaseDate == Instant(millisecondsSince1970: 1_698_148_800_000))
        #expect(core.expiresDate == Instant(millisecondsSince1970: 1_698_149_000_000))
        #expect(core.revocationDate == Instant(millisecondsSince1970: 1_698_148_950_000))
        #expect(core.revocationReason == 1)
        #expect(core.subscriptionGroupID == "55555")
        #expect(core.isUpgraded)
        #expect(core.isInIntroOfferPeriod)
        #expect(core.offerType == 1)
        #expect(core.offerIdentifier == "abc.123")
        #expect(core.offerDiscountType == "PAY_AS_YOU_GO")
        #expect(core.accountHint == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(core.rawProductType == "Auto-Renewable Subscription")
        #expect(core.price == 10990)
        #expect(core.currency == "USD")
        #expect(core.storefront == "USA")
        #expect(core.signedDate == Instant(millisecondsSince1970: 1_698_148_900_000))
        #expect(core.source == .serverAPI)
        #expect(core.environment == .localTesting)
    }

    @Test func everyModelFileHasADecoder() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: TestResources.url("models").path)
            .filter { $0.hasSuffix(".json") }
            .map { String($0.dropLast(5)) }
        #expect(names.count == 15)
        #expect(Set(names) == Set(Self.decoders.keys))
    }

    @Test(arguments: decoders.keys.sorted())
    func modelDecodes(name: String) throws {
        try Self.decoders[name]?(TestResources.model(name))
    }

    @Test func unknownEnumValuesAreKeptRaw() throws {
        let json = #"{"notificationType":"SOMETHING_NEW","subtype":"ALSO_NEW","notificationUUID":"x"}"#
        let body = try JSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: Data(json.utf8))
        #expect(body.notificationType == nil)
        #expect(body.rawNotificationType == "SOMETHING_NEW")
        #expect(body.rawSubtype == "ALSO_NEW")
        let transaction = try JSONDecoder().decode(
            JWSTransactionDecodedPayload.self,
            from: Data(#"{"type":"Brand New Type","offerType":9,"inAppOwnershipType":"SHARED_SOMEHOW"}"#.utf8)
        )
        #expect(transaction.type == nil && transaction.rawType == "Brand New Type")
        #expect(transaction.offerType == nil && transaction.rawOfferType == 9)
        let reencoded = try JSONEncoder().encode(transaction)
        #expect(String(decoding: reencoded, as: UTF8.self).contains("Brand New Type"))
    }

    @Test func everyDocumentedNotificationTypeAndSubtypeIsKnown() {
        for name in [
            "SUBSCRIBED", "DID_RENEW", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "OFFER_REDEEMED",
            "DID_FAIL_TO_RENEW", "GRACE_PERIOD_EXPIRED", "EXPIRED", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED",
            "REFUND_REVERSED", "CONSUMPTION_REQUEST", "RENEWAL_EXTENDED", "RENEWAL_EXTENSION", "REVOKE", "TEST",
            "EXTERNAL_PURCHASE_TOKEN", "ONE_TIME_CHARGE", "METADATA_UPDATE", "MIGRATION", "PRICE_CHANGE",
            "RESCIND_CONSENT",
        ] {
            #expect(NotificationTypeV2(rawValue: name) != nil, "\(name)")
        }
        for name in [
            "INITIAL_BUY", "RESUBSCRIBE", "DOWNGRADE", "UPGRADE", "AUTO_RENEW_ENABLED", "AUTO_RENEW_DISABLED",
            "VOLUNTARY", "BILLING_RETRY", "PRICE_INCREASE", "GRACE_PERIOD", "PENDING", "ACCEPTED", "BILLING_RECOVERY",
            "PRODUCT_NOT_FOR_SALE", "SUMMARY", "FAILURE", "UNREPORTED",
        ] {
            #expect(NotificationSubtypeV2(rawValue: name) != nil, "\(name)")
        }
    }
}

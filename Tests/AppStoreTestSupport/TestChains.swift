import AppStore
import Foundation
import SubLedgerCore

/// Generated signing chains and payloads for tests beyond Apple's vectors.
public enum TestChains {
    public static let notBefore = Instant(millisecondsSince1970: 1_600_000_000_000)  // 2020-09
    public static let notAfter = Instant(millisecondsSince1970: 2_000_000_000_000)  // 2033-05
    public static let now = Instant(millisecondsSince1970: 1_700_000_000_000)  // 2023-11

    public static func chain(_ options: SigningChain.Options = .init()) throws -> SigningChain {
        try SigningChain.generate(notValidBefore: notBefore, notValidAfter: notAfter, options: options)
    }

    public static func verifier(
        roots: [TrustedRoot],
        environment: StoreEnvironment = .sandbox,
        appAppleID: Int64? = 1234,
        validationTime: CertificateValidationTime = .signedDate,
        now: Instant = TestChains.now,
        cacheCapacity: Int = 32
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            configuration: .init(
                bundleID: "com.example",
                appAppleID: appAppleID,
                environment: environment,
                signature: .init(roots: roots, validationTime: validationTime, chainCacheCapacity: cacheCapacity)
            ),
            now: { now }
        )
    }

    public static func transaction(
        id: String = "2000000000000001",
        environment: String = "Sandbox",
        signedDate: Int64 = 1_700_000_000_000
    ) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            originalTransactionID: "2000000000000000",
            transactionID: id,
            webOrderLineItemID: "34343",
            bundleID: "com.example",
            productID: "com.example.monthly",
            subscriptionGroupIdentifier: "group",
            purchaseDate: 1_699_000_000_000,
            originalPurchaseDate: 1_690_000_000_000,
            expiresDate: 1_701_600_000_000,
            quantity: 1,
            rawType: "Auto-Renewable Subscription",
            rawInAppOwnershipType: "PURCHASED",
            signedDate: signedDate,
            rawEnvironment: environment,
            storefront: "USA",
            rawTransactionReason: "RENEWAL",
            currency: "USD",
            price: 9990
        )
    }

    public static func renewal(environment: String = "Sandbox") -> JWSRenewalInfoDecodedPayload {
        JWSRenewalInfoDecodedPayload(
            originalTransactionID: "2000000000000000",
            autoRenewProductID: "com.example.monthly",
            productID: "com.example.monthly",
            rawAutoRenewStatus: 1,
            isInBillingRetryPeriod: false,
            signedDate: 1_700_000_000_000,
            rawEnvironment: environment,
            renewalDate: 1_701_600_000_000
        )
    }
}

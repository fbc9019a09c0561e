import AppStore
import AppStoreTestSupport
import Foundation
import SubLedgerCore
import Testing

/// Every Apple date is range-checked where it is decoded (`Instant.acceptedRange`): an absurd value is a
/// named error, never an overflow that ends the process.
@Suite struct AppleDateRangeTests {
    static let outOfRange: [String] = [
        #""9223372036854775807""#, "9223372036854775807", "-9223372036854775808", "1e30", #""99999999999999999999""#,
        "-1", "253402300799001",
    ]

    static func v1Body(expires: String = #""1702592000000""#, grace: String = #""1702592000000""#) -> String {
        """
        {"notification_type": "DID_RENEW", "password": "app-shared-secret", "environment": "PROD",
         "bid": "com.example", "bvrs": "42",
         "unified_receipt": {"status": 0, "environment": "Production", "latest_receipt": "BASE64",
           "latest_receipt_info": [{"product_id": "com.example.monthly", "transaction_id": "5",
             "original_transaction_id": "1", "purchase_date_ms": "1700000000000", "expires_date_ms": \(expires)}],
           "pending_renewal_info": [{"product_id": "com.example.monthly", "original_transaction_id": "1",
             "auto_renew_status": "1", "grace_period_expires_date_ms": \(grace)}]}}
        """
    }

    static func decodeV1(_ body: String) throws -> VerifiedNotificationV1 {
        let decoder = try ServerNotificationDecoderTests.productionDecoder()
        return try decoder.decodeV1(
            body: Data(body.utf8), receivedAt: Instant(millisecondsSince1970: 1_700_000_500_000))
    }

    // MARK: V1 notifications and verifyReceipt

    @Test(arguments: outOfRange)
    func v1NotificationWithAnAbsurdExpiryIsRefusedNamingTheField(expires: String) {
        #expect(
            throws: NotificationDecodingError(
                .unmappable, mappingError: .init(.dateOutOfRange, field: "expires_date_ms"))
        ) { try Self.decodeV1(Self.v1Body(expires: expires)) }
    }

    @Test func v1NotificationWithAnAbsurdGracePeriodIsRefused() {
        #expect(
            throws: NotificationDecodingError(
                .unmappable, mappingError: .init(.dateOutOfRange, field: "grace_period_expires_date_ms"))
        ) { try Self.decodeV1(Self.v1Body(grace: "9223372036854775807")) }
    }

    @Test func v1NotificationWithAnAbsurdTopLevelCancellationIsRefused() {
        var body = Self.v1Body()
        body.insert(
            contentsOf: #""cancellation_date_ms": "9223372036854775807", "#, at: body.index(after: body.startIndex))
        #expect(
            throws: NotificationDecodingError(
                .unmappable, mappingError: .init(.dateOutOfRange, field: "cancellation_date_ms"))
        ) { try Self.decodeV1(body) }
    }

    @Test func v1DatesAtTheEdgesOfTheRangeAreAccepted() throws {
        let verified = try Self.decodeV1(Self.v1Body(expires: "253402300799000", grace: #""0""#))
        let receipt = try #require(verified.notification.receipt)
        #expect(receipt.transactions.first?.expiresDate == Instant.latestAccepted)
        #expect(receipt.renewalInfo.first?.gracePeriodExpiresDate == Instant.earliestAccepted)
    }

    @Test(
        arguments: [("1702592000000.5", 1_702_592_000_000), (#""1702592000000.999""#, 1_702_592_000_000)]
            as [(String, Int64)])
    func v1FractionalMillisecondsAreTruncated(expires: String, expected: Int64) throws {
        let verified = try Self.decodeV1(Self.v1Body(expires: expires))
        #expect(
            verified.notification.receipt?.transactions.first?.expiresDate == Instant(millisecondsSince1970: expected))
    }

    static func verifyReceiptAnswer(field: String, value: String) throws -> VerifyReceiptResponse {
        var transaction: [String: String] = [
            "product_id": "com.example.monthly", "transaction_id": "7", "original_transaction_id": "7",
            "purchase_date_ms": "1700000000000", "expires_date_ms": "1702592000000",
        ]
        var receipt = #"{"bundle_id": "com.example", "request_date_ms": "1700000000000", "in_app": []}"#
        if field == "request_date_ms" {
            receipt = #"{"bundle_id": "com.example", "request_date_ms": \#(value), "in_app": []}"#
        } else {
            transaction[field] = "@"
        }
        let entry = String(decoding: try JSONSerialization.data(withJSONObject: transaction), as: UTF8.self)
            .replacingOccurrences(of: #""@""#, with: value)
        let body =
            #"{"status": 0, "environment": "Production", "receipt": \#(receipt), "latest_receipt_info": [\#(entry)]}"#
        return try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(body.utf8))
    }

    @Test(arguments: [
        "purchase_date_ms", "expires_date_ms", "original_purchase_date_ms", "cancellation_date_ms", "request_date_ms",
    ])
    func verifyReceiptAnswerWithAnAbsurdDateIsRefusedNamingTheField(field: String) throws {
        let answer = try Self.verifyReceiptAnswer(field: field, value: "9223372036854775807")
        #expect(throws: PayloadMappingError(.dateOutOfRange, field: field)) {
            try answer.receiptSnapshot(answeredBy: .production, requestedAt: TestChains.now)
        }
    }

    @Test func formattedLegacyDateTextStillReadsAsAbsent() throws {
        let body = #"""
            {"status": 0, "receipt": {"bid": "com.example", "transaction_id": "9", "product_id": "p",
             "purchase_date": "2013-01-01 00:00:00 Etc/GMT", "purchase_date_ms": "1357000000000",
             "expires_date": "2013-02-01 00:00:00 Etc/GMT"}}
            """#
        let answer = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(body.utf8))
        #expect(answer.receipt?.legacyTransaction?.expiresDateMS == nil)
        #expect(answer.receipt?.legacyTransaction?.purchaseDateMS == 1_357_000_000_000)
    }

    // MARK: Signed payloads (JWS, Server API)

    static func transactionJSON(expiresDate: String) -> Data {
        Data(
            #"""
            {"transactionId": "1", "originalTransactionId": "1", "bundleId": "com.example", "productId": "p",
             "purchaseDate": 1698148800000, "expiresDate": \#(expiresDate), "signedDate": 1698148900000.25,
             "environment": "Sandbox", "type": "Auto-Renewable Subscription"}
            """#.utf8)
    }

    @Test func fractionalMillisecondsInSignedPayloadsAreTruncated() throws {
        let payload = try JSONDecoder().decode(
            JWSTransactionDecodedPayload.self, from: Self.transactionJSON(expiresDate: "1698148900000.5"))
        #expect(payload.expiresDate == 1_698_148_900_000)
        #expect(payload.signedDate == 1_698_148_900_000)
        let transaction = try payload.coreTransaction(source: .signedTransaction)
        #expect(transaction.expiresDate == Instant(millisecondsSince1970: 1_698_148_900_000))
    }

    @Test(arguments: ["9223372036854775807", "-1", "1e300", "253402300799500", #""1698148900000""#, "true"])
    func signedPayloadWithAnImpossibleDateFailsToDecodeNamingTheField(expiresDate: String) throws {
        do {
            _ = try JSONDecoder().decode(
                JWSTransactionDecodedPayload.self, from: Self.transactionJSON(expiresDate: expiresDate))
            Issue.record("decoded \(expiresDate)")
        } catch let error as DecodingError {
            switch error {
            case .dataCorrupted(let context), .typeMismatch(_, let context):
                #expect(context.codingPath.last?.stringValue == "expiresDate")
            default:
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func absentAndNullSignedDatesStayAbsentAndAreNotReEncoded() throws {
        let json = #"{"transactionId": "1", "expiresDate": null}"#
        let payload = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        #expect(payload.expiresDate == nil)
        #expect(payload.purchaseDate == nil)
        let encoded = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        #expect(!encoded.contains("expiresDate"))
        #expect(!encoded.contains("purchaseDate"))
    }

    @Test func signedTransactionWithAnAbsurdExpiryDoesNotVerify() async throws {
        let chain = try TestChains.chain()
        var transaction = TestChains.transaction()
        transaction.expiresDate = .max
        let token = try JWSSigner(chain: chain).sign(transaction)
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot])
        await #expect(throws: JWSVerificationError.self) { try await verifier.verifyTransaction(token) }
    }

    @Test func v2NotificationWithAnAbsurdSignedDateIsRefused() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        var notification = try ServerNotificationDecoderTests.notification(signer: signer)
        notification.signedDate = .max
        let decoder = ServerNotificationDecoder(
            verifier: try TestChains.verifier(roots: [chain.trustedRoot]), sharedSecret: nil)
        await #expect(throws: NotificationDecodingError.self) {
            try await decoder.decodeV2(signedPayload: try signer.sign(notification))
        }
    }

    @Test func payloadsBuiltInCodeAreRangeCheckedWhenMapped() {
        var transaction = TestChains.transaction()
        transaction.revocationDate = .max
        #expect(throws: PayloadMappingError(.dateOutOfRange, field: "revocationDate")) {
            try transaction.coreTransaction(source: .serverAPI)
        }
        var renewal = TestChains.renewal()
        renewal.gracePeriodExpiresDate = .min
        #expect(throws: PayloadMappingError(.dateOutOfRange, field: "gracePeriodExpiresDate")) {
            try renewal.coreRenewalInfo()
        }
    }

    @Test func revocationReasonsBeyondInt32AreRefusedNotSentToTheDatabase() throws {
        var transaction = TestChains.transaction()
        transaction.rawRevocationReason = 9_999_999_999
        #expect(throws: PayloadMappingError(.valueOutOfRange, field: "revocationReason")) {
            try transaction.coreTransaction(source: .serverAPI)
        }
        transaction.rawRevocationReason = 7  // unknown to this code, but a plausible future Apple value: kept
        #expect(try transaction.coreTransaction(source: .serverAPI).revocationReason == 7)
        let entry = ReceiptTransactionInfo(
            productID: "p", transactionID: "1", purchaseDateMS: 1_700_000_000_000, rawCancellationReason: 1 << 40)
        #expect(throws: PayloadMappingError(.valueOutOfRange, field: "cancellation_reason")) {
            try entry.coreTransaction(bundleID: "com.example", environment: .production, source: .verifyReceipt)
        }
    }

    /// The signed date picks the certificates' validation time before the signature is checked; at either end
    /// of the accepted range the chain is simply not valid then (swift-certificates trapped beyond year 9999).
    @Test(arguments: [Instant.earliestAccepted, Instant.latestAccepted, Instant(millisecondsSince1970: .max)])
    func signedDatesAtTheEdgesSelectAValidationTimeWithoutTrapping(signedDate: Instant) async throws {
        let chain = try TestChains.chain()
        let token = try JWSSigner(chain: chain).sign(
            TestChains.transaction(signedDate: signedDate.millisecondsSince1970))
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot])
        await #expect(throws: JWSVerificationError.self) { try await verifier.verifyTransaction(token) }
    }
}

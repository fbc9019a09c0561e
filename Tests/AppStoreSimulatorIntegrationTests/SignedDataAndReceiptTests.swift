import AppStore
import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import SubLedgerCore
import Testing

@Suite struct SignedDataAndReceiptTests {
    @Test func signedDataVerifiesAgainstTheExportedRootStrictlyAndFailsAgainstApplesRoot() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("jws@example.com")
            let bought = try await fixture.buy("jws@example.com", "pro.monthly")
            let exported = try TrustedRoot(derOrPEM: fixture.simulator.rootCertificateDER, strictRFC5280: true)
            let verifier = try fixture.verifier(roots: [exported])
            let transaction = try await verifier.verifyTransaction(try #require(bought.signedTransaction))
            #expect(transaction.transactionID == bought.transactionID)
            let renewal = try await verifier.verifyRenewalInfo(try #require(bought.signedRenewalInfo))
            #expect(renewal.originalTransactionID == bought.originalTransactionID)

            let header = try CompactJWS(try #require(bought.signedTransaction)).header
            #expect(header.algorithm == "ES256")
            #expect(header.certificateChain?.count == 3)
            #expect(header.type == nil)

            let apple = try fixture.verifier(roots: [try TrustedRoot.appleRootCAG3()])
            await #expect(throws: JWSVerificationError.self) {
                _ = try await apple.verifyTransaction(try #require(bought.signedTransaction))
            }
        }
    }

    @Test func rootIsServedOverControlAndStableForASeed() async throws {
        try await SimulatorFixture.with { fixture in
            var request = HTTPClientRequestBuilder.get(
                fixture.simulator.baseURL + "/control/root-certificate?format=pem")
            request.method = .GET
            let response = try await fixture.http.execute(request, timeout: .seconds(20))
            let pem = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(pem.contains("BEGIN CERTIFICATE"))
            let again = try AppStoreSimulator.rootCertificate(seed: 42)
            let first = try TrustedRoot(derOrPEM: Data(pem.utf8), strictRFC5280: true)
            let second = try TrustedRoot(derOrPEM: Data(again.der), strictRFC5280: true)
            #expect(first.certificate.publicKey == second.certificate.publicKey)
        }
    }

    @Test func appReceiptIsAPKCS7ContainerThatAppReceiptReaderParses() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("pkcs7@example.com")
            let subscription = try await fixture.buy("pkcs7@example.com", "pro.monthly")
            let coins = try await fixture.buy("pkcs7@example.com", "coins")
            let receipt = try AppReceiptReader().read(base64: coins.receiptData)
            #expect(receipt.bundleID == SimulatorFixture.bundleID)
            #expect(receipt.environment == .sandbox)
            #expect(receipt.applicationVersion == "1.0")
            #expect(receipt.creationDate == coins.now)
            #expect(
                Set(receipt.inAppPurchases.compactMap(\.transactionID)) == [
                    subscription.transactionID!, coins.transactionID!,
                ])
            let entry = try #require(receipt.inAppPurchases.first { $0.transactionID == subscription.transactionID })
            #expect(entry.originalTransactionID == subscription.originalTransactionID)
            #expect(entry.webOrderLineItemID.map(String.init) == subscription.webOrderLineItemID)
            #expect(entry.expiresDate != nil)
            #expect(entry.productID == "pro.monthly")
            // A finished consumable leaves the receipt.
            let finished = try await fixture.action("/control/transactions/\(coins.transactionID!)/finish")
            #expect(try AppReceiptReader().read(base64: finished.receiptData).inAppPurchases.count == 1)
        }
    }
}

/// Builds plain requests for the few raw HTTP calls tests make.
enum HTTPClientRequestBuilder {
    static func get(_ url: String) -> HTTPClientRequest { HTTPClientRequest(url: url) }
}

import AppStore
import Foundation
import SubLedgerCore
import Testing

/// Hostile input never crashes a decoder: every random or mutated input gives a typed error (or, for
/// mutations that keep JSON meaningful, a value), with a fixed seed so failures reproduce.
@Suite struct FuzzTests {
    static let base64URLAlphabet = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ {}\"".utf8)

    /// The table-driven canonical decoder against Foundation: any bytes round-trip, and a random string
    /// decodes exactly when Foundation decodes it and re-encoding gives the same string back.
    @Test func canonicalBase64URLAgreesWithFoundation() {
        var random = SeededGenerator(seed: 0x5EED_0B64)
        for length in 0..<70 {
            let bytes = random.bytes(length)
            #expect(Base64URL.decodeCanonical(bytes: Base64URL.encodedBytes(bytes)) == Data(bytes))
        }
        for _ in 0..<5000 {
            let length = Int.random(in: 0...24, using: &random)
            let text = (0..<length).map { _ in Self.base64URLAlphabet.randomElement(using: &random)! }
            let reference = Base64URL.decode(bytes: text).flatMap { Base64URL.encodedBytes($0) == text ? $0 : nil }
            #expect(Base64URL.decodeCanonical(bytes: text) == reference, "\(String(decoding: text, as: UTF8.self))")
        }
    }

    @Test func randomTokensNeverVerify() async throws {
        var random = SeededGenerator(seed: 0x5EED_0001)
        let verifier = try TestResources.vectorVerifier().signatureVerifier
        for _ in 0..<2000 {
            let length = Int.random(in: 0...400, using: &random)
            let token = String(
                decoding: (0..<length).map { _ in Self.base64URLAlphabet.randomElement(using: &random)! },
                as: UTF8.self
            )
            await #expect(throws: JWSVerificationError.self) { try await verifier.verify(token) }
        }
    }

    @Test func mutatedAppleTokensNeverVerify() async throws {
        var random = SeededGenerator(seed: 0x5EED_0002)
        let verifier = try TestResources.vectorVerifier().signatureVerifier
        let original = Array(try TestResources.signedData("transactionInfo").utf8)
        var failures = 0
        for _ in 0..<1500 {
            var mutated = random.mutate(original)
            if Bool.random(using: &random) { mutated = random.mutate(mutated) }
            guard mutated != original else { continue }
            do {
                _ = try await verifier.verify(String(decoding: mutated, as: UTF8.self))
                Issue.record("a mutated token verified")
            } catch {
                failures += 1
            }
        }
        #expect(failures > 1400)
    }

    @Test func randomBytesNeverDecodeAsAReceiptAnswer() {
        var random = SeededGenerator(seed: 0x5EED_0003)
        for _ in 0..<3000 {
            let bytes = random.bytes(Int.random(in: 0...300, using: &random))
            #expect(throws: (any Error).self) {
                try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(bytes))
            }
        }
    }

    @Test func mutatedReceiptAnswersDecodeOrFailCleanly() throws {
        var random = SeededGenerator(seed: 0x5EED_0004)
        let original = Array(try TestResources.data("receipts/verifyReceipt-ios7.json"))
        var decoded = 0
        for _ in 0..<2000 {
            let mutated = random.mutate(random.mutate(original))
            guard let response = try? JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(mutated)) else {
                continue
            }
            decoded += 1
            do {
                _ = try response.receiptSnapshot(answeredBy: .sandbox, requestedAt: Instant(millisecondsSince1970: 0))
            } catch {
                #expect(!error.field.isEmpty)
            }
        }
        #expect(decoded > 0)
    }

    @Test func randomBytesNeverReadAsAnAppReceipt() {
        var random = SeededGenerator(seed: 0x5EED_0005)
        let reader = AppReceiptReader()
        for _ in 0..<3000 {
            var bytes = random.bytes(Int.random(in: 0...512, using: &random))
            // Half the inputs start like a SEQUENCE so the parser gets past the first byte.
            if Bool.random(using: &random), !bytes.isEmpty { bytes[0] = 0x30 }
            #expect(throws: AppReceiptError.self) { try reader.read(der: bytes) }
        }
    }

    @Test func mutatedAppReceiptsReadOrFailWithATypedError() throws {
        var random = SeededGenerator(seed: 0x5EED_0006)
        let reader = AppReceiptReader()
        let original = try AppReceiptFixture.sampleReceipt()
        var rejected = 0
        for _ in 0..<3000 {
            do {
                _ = try reader.read(der: random.mutate(original))
            } catch {
                rejected += 1
            }
        }
        #expect(rejected > 1000)
    }

    @Test func randomNotificationBodiesAreRejected() async throws {
        var random = SeededGenerator(seed: 0x5EED_0007)
        let decoder = ServerNotificationDecoder(verifier: try TestResources.vectorVerifier(), sharedSecret: "secret")
        for _ in 0..<1000 {
            let body = Data(random.bytes(Int.random(in: 0...200, using: &random)))
            await #expect(throws: NotificationDecodingError.self) { try await decoder.decodeV2(body: body) }
            #expect(throws: NotificationDecodingError.self) { try decoder.decodeV1(body: body) }
        }
    }
}

import AppStore
import Crypto
import Foundation
import SubLedgerCore
import Testing

/// Offer signatures as StoreKit checks them, verified here with the public key only: the StoreKit 1 message is
/// rebuilt from Apple's documented field order, the StoreKit 2 JWS is taken apart claim by claim.
@Suite struct OfferSigningTests {
    static let bundleID = "com.example.one"
    static let keyID = "OFFERKEY01"
    static let issuerID = "57246542-96fe-1e63-e053-0824d011072a"
    static let nonce = UUID(uuidString: "20FBA8A0-2B80-4A7D-A17F-85C1854727F8")!
    static let token = "5E3B0E5C-0E42-4F0C-9C4A-1D2E3F405060"
    static let instant = Instant(millisecondsSince1970: 1_735_689_600_123)

    static func key() throws -> (OfferSigningKey, P256.Signing.PublicKey) {
        let privateKey = P256.Signing.PrivateKey()
        let key = try OfferSigningKey(
            bundleID: bundleID, issuerID: issuerID, keyID: keyID, privateKeyPEM: privateKey.pemRepresentation)
        return (key, privateKey.publicKey)
    }

    /// Apple's "Generating a signature for promotional offers", written out again independently of the code:
    /// appBundleID, keyIdentifier, productIdentifier, offerIdentifier, appAccountToken, nonce, timestamp,
    /// joined by U+2063, token and nonce in lowercase.
    static func applesMessage(token: String, nonce: String, timestamp: Int64) -> String {
        let separator = "\u{2063}"
        return bundleID + separator + keyID + separator + "pro.monthly" + separator + "spring50" + separator
            + token + separator + nonce + separator + String(timestamp)
    }

    @Test func storeKit1SignatureVerifiesOverApplesFieldOrder() throws {
        let (key, publicKey) = try Self.key()
        let signed = try key.promotionalOfferSignature(
            productID: "pro.monthly", offerIdentifier: "spring50", appAccountToken: Self.token, nonce: Self.nonce,
            timestamp: Self.instant)
        #expect(signed.keyIdentifier == Self.keyID)
        #expect(signed.nonce == "20fba8a0-2b80-4a7d-a17f-85c1854727f8")
        #expect(signed.timestamp == 1_735_689_600_123)
        let der = try #require(Data(base64Encoded: signed.signature))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: der)
        let message = Self.applesMessage(
            token: "5e3b0e5c-0e42-4f0c-9c4a-1d2e3f405060", nonce: "20fba8a0-2b80-4a7d-a17f-85c1854727f8",
            timestamp: 1_735_689_600_123)
        #expect(publicKey.isValidSignature(signature, for: Data(message.utf8)))
        // The same fields in another order, or the token in upper case, are another message.
        let swapped = message.replacingOccurrences(
            of: "pro.monthly\u{2063}spring50", with: "spring50\u{2063}pro.monthly")
        #expect(!publicKey.isValidSignature(signature, for: Data(swapped.utf8)))
        let upper = message.replacingOccurrences(of: "5e3b0e5c-0e42-4f0c-9c4a-1d2e3f405060", with: Self.token)
        #expect(!publicKey.isValidSignature(signature, for: Data(upper.utf8)))
    }

    @Test func storeKit1SignatureWithoutATokenSignsAnEmptyField() throws {
        let (key, publicKey) = try Self.key()
        let signed = try key.promotionalOfferSignature(
            productID: "pro.monthly", offerIdentifier: "spring50", appAccountToken: nil, nonce: Self.nonce,
            timestamp: Self.instant)
        let der = try #require(Data(base64Encoded: signed.signature))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: der)
        let message = Self.applesMessage(token: "", nonce: signed.nonce, timestamp: signed.timestamp)
        #expect(publicKey.isValidSignature(signature, for: Data(message.utf8)))
        #expect(
            PromotionalOfferSignature.message(
                bundleID: Self.bundleID, keyIdentifier: Self.keyID, productID: "pro.monthly",
                offerIdentifier: "spring50", appAccountToken: nil, nonce: Self.nonce, timestamp: signed.timestamp)
                == message)
    }

    /// A compact JWS taken apart: header and payload as JSON objects, and whether `publicKey` verifies it.
    static func open(_ jws: String, with publicKey: P256.Signing.PublicKey) throws
        -> (header: [String: Any], payload: [String: Any], verifies: Bool)
    {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let headerBytes = try #require(Base64URL.decode(parts[0]))
        let payloadBytes = try #require(Base64URL.decode(parts[1]))
        let signatureBytes = try #require(Base64URL.decode(parts[2]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerBytes) as? [String: Any])
        let payload = try #require(try JSONSerialization.jsonObject(with: payloadBytes) as? [String: Any])
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        let verifies = publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        return (header, payload, verifies)
    }

    @Test func storeKit2PromotionalOfferJWSCarriesApplesHeaderAndClaims() throws {
        let (key, publicKey) = try Self.key()
        let jws = try key.promotionalOfferJWS(
            productID: "pro.monthly", offerIdentifier: "spring50", transactionID: "2000000123456789",
            nonce: Self.nonce, issuedAt: Self.instant)
        let opened = try Self.open(jws, with: publicKey)
        #expect(opened.verifies)
        #expect(opened.header.count == 3)
        #expect(opened.header["alg"] as? String == "ES256")
        #expect(opened.header["kid"] as? String == Self.keyID)
        #expect(opened.header["typ"] as? String == "JWT")
        #expect(
            Set(opened.payload.keys)
                == ["iss", "iat", "aud", "bid", "nonce", "productId", "offerIdentifier", "transactionId"])
        #expect(opened.payload["iss"] as? String == Self.issuerID)
        #expect(opened.payload["iat"] as? Int == 1_735_689_600)
        #expect(opened.payload["aud"] as? String == "promotional-offer")
        #expect(opened.payload["bid"] as? String == Self.bundleID)
        #expect(opened.payload["nonce"] as? String == "20fba8a0-2b80-4a7d-a17f-85c1854727f8")
        #expect(opened.payload["productId"] as? String == "pro.monthly")
        #expect(opened.payload["offerIdentifier"] as? String == "spring50")
        #expect(opened.payload["transactionId"] as? String == "2000000123456789")
    }

    @Test func storeKit2PromotionalOfferJWSLeavesOutAnAbsentTransactionID() throws {
        let (key, publicKey) = try Self.key()
        let jws = try key.promotionalOfferJWS(
            productID: "pro.monthly", offerIdentifier: "spring50", transactionID: nil, nonce: Self.nonce,
            issuedAt: Self.instant)
        let opened = try Self.open(jws, with: publicKey)
        #expect(opened.verifies)
        #expect(opened.payload["transactionId"] == nil)
        #expect(opened.payload.count == 7)
    }

    @Test(arguments: [true, false])
    func introductoryOfferEligibilityJWSCarriesTheDecision(allowed: Bool) throws {
        let (key, publicKey) = try Self.key()
        let jws = try key.introductoryOfferEligibilityJWS(
            productID: "pro.monthly", allowIntroductoryOffer: allowed, transactionID: "2000000123456789",
            nonce: Self.nonce, issuedAt: Self.instant)
        let opened = try Self.open(jws, with: publicKey)
        #expect(opened.verifies)
        #expect(opened.header["kid"] as? String == Self.keyID)
        #expect(
            Set(opened.payload.keys)
                == ["iss", "iat", "aud", "bid", "nonce", "productId", "allowIntroductoryOffer", "transactionId"])
        #expect(opened.payload["aud"] as? String == "introductory-offer-eligibility")
        #expect(opened.payload["allowIntroductoryOffer"] as? Bool == allowed)
        #expect(opened.payload["transactionId"] as? String == "2000000123456789")
        #expect(opened.payload["productId"] as? String == "pro.monthly")
        // Another key does not verify it.
        #expect(try !Self.open(jws, with: P256.Signing.PrivateKey().publicKey).verifies)
    }

    @Test func aKeyThatIsNotAP256PEMKeyIsRefused() throws {
        do {
            _ = try OfferSigningKey(
                bundleID: Self.bundleID, issuerID: Self.issuerID, keyID: Self.keyID,
                privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----")
            Issue.record("a key that is not a key was accepted")
        } catch {
            #expect(error.code == .invalidKey)
            #expect(!error.message.contains("not a key"))
        }
        let pem = P256.Signing.PrivateKey().pemRepresentation
        for keyID in ["", "KEY\u{2063}ID", String(repeating: "K", count: 129)] {
            do {
                _ = try OfferSigningKey(
                    bundleID: Self.bundleID, issuerID: Self.issuerID, keyID: keyID, privateKeyPEM: pem)
                Issue.record("key id \(keyID.debugDescription) was accepted")
            } catch {
                #expect(error.code == .invalidKeyIdentity)
            }
        }
    }
}

import Crypto
import Foundation
import GooglePlay
import SubLedgerCore
import Testing
import _CryptoExtras

/// Keys generated once for the suite: RSA generation is the slow part.
enum TestKeys {
    static let google = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let other = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let account = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
}

@Suite struct PubSubPushTokenVerifierTests {
    static let now = Instant(millisecondsSince1970: 1_750_000_000_000)
    static let nowSeconds: Int64 = 1_750_000_000
    static let audience = "https://subledger.example.com/v1/notifications/googleplay"
    static let email = "rtdn-push@project.iam.gserviceaccount.com"

    struct Claims: Encodable {
        var iss: String? = "https://accounts.google.com"
        var aud: String? = PubSubPushTokenVerifierTests.audience
        var email: String? = PubSubPushTokenVerifierTests.email
        var email_verified: Bool? = true
        var exp: Int64? = PubSubPushTokenVerifierTests.nowSeconds + 3000
        var iat: Int64? = PubSubPushTokenVerifierTests.nowSeconds - 600
        var nbf: Int64?
        var sub: String? = "1234567890"
    }

    var verifier: PubSubPushTokenVerifier {
        PubSubPushTokenVerifier(
            configuration: .init(audience: Self.audience, serviceAccountEmail: Self.email),
            keys: JSONWebKeySet(keys: ["k1": TestKeys.google.publicKey]))
    }

    func token(
        _ claims: Claims = Claims(), kid: String = "k1", alg: String = "RS256",
        key: _RSA.Signing.PrivateKey = TestKeys.google
    ) throws -> String {
        try RS256.sign(header: .init(alg: alg, kid: kid), claims: claims, with: key)
    }

    func code(_ token: String, now: Instant = PubSubPushTokenVerifierTests.now) -> JWTVerificationError.Code? {
        do {
            _ = try verifier.verify(token, now: now)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aGoogleSignedTokenForThisAudienceAndAccountIsAccepted() throws {
        let claims = try verifier.verify(authorization: "Bearer " + token(), now: Self.now)
        #expect(claims.email == Self.email)
        #expect(claims.audience == Self.audience)
        #expect(claims.expiresAt == Instant(millisecondsSince1970: (Self.nowSeconds + 3000) * 1000))
        var bare = Claims()
        bare.iss = "accounts.google.com"
        #expect(code(try token(bare)) == nil)
    }

    @Test func eachFailedCheckHasItsOwnCode() throws {
        #expect(code("") == .missingToken)
        #expect(code("a.b") == .malformedToken)
        #expect(code("a.b.c") == .malformedToken)
        #expect(code(try token(alg: "HS256")) == .unsupportedAlgorithm)
        let critical = try RS256.sign(
            header: .init(alg: "RS256", kid: "k1", crit: ["exp"]), claims: Claims(), with: TestKeys.google)
        #expect(code(critical) == .malformedToken)
        #expect(code(try token(kid: "k2")) == .unknownKey)
        #expect(code(try token(key: TestKeys.other)) == .invalidSignature)
        var claims = Claims()
        claims.iss = "https://evil.example.com"
        #expect(code(try token(claims)) == .invalidIssuer)
        claims = Claims()
        claims.aud = "https://other.example.com"
        #expect(code(try token(claims)) == .invalidAudience)
        claims = Claims()
        claims.exp = Self.nowSeconds - 61
        #expect(code(try token(claims)) == .expired)
        claims = Claims()
        claims.exp = nil
        #expect(code(try token(claims)) == .expired)
        claims = Claims()
        claims.iat = Self.nowSeconds + 61
        #expect(code(try token(claims)) == .notYetValid)
        claims = Claims()
        claims.nbf = Self.nowSeconds + 120
        #expect(code(try token(claims)) == .notYetValid)
        claims = Claims()
        claims.email = "someone@else.com"
        #expect(code(try token(claims)) == .invalidEmail)
        claims = Claims()
        claims.email_verified = false
        #expect(code(try token(claims)) == .emailNotVerified)
        claims.email_verified = nil
        #expect(code(try token(claims)) == .emailNotVerified)
    }

    @Test func leewayCoversSmallSkewOnly() throws {
        var claims = Claims()
        claims.exp = Self.nowSeconds - 59
        claims.iat = Self.nowSeconds - 3000
        #expect(code(try token(claims)) == nil)
        claims = Claims()
        claims.iat = Self.nowSeconds + 59
        #expect(code(try token(claims)) == nil)
    }

    @Test func aTamperedPayloadFailsTheSignature() throws {
        let parts = try token().split(separator: ".").map(String.init)
        var claims = Claims()
        claims.email = "attacker@example.com"
        let forgedPayload = try token(claims).split(separator: ".")[1]
        #expect(code(parts[0] + "." + forgedPayload + "." + parts[2]) == .invalidSignature)
    }

    @Test func bearerHeaderIsRequired() {
        #expect(throws: JWTVerificationError(.missingToken)) { try verifier.verify(authorization: nil, now: Self.now) }
        #expect(throws: JWTVerificationError(.missingToken)) {
            try verifier.verify(authorization: "Basic abc", now: Self.now)
        }
    }
}

@Suite struct JSONWebKeySetTests {
    @Test func writtenSetReadsBackAndVerifies() throws {
        let set = JSONWebKeySet(keys: ["a": TestKeys.google.publicKey, "b": TestKeys.other.publicKey])
        let read = try JSONWebKeySet(jsonData: try set.jsonData())
        #expect(Set(read.keys.keys) == ["a", "b"])
        let signature = try TestKeys.google.signature(
            for: SHA256.hash(data: Data("x".utf8)), padding: .insecurePKCS1v1_5)
        #expect(RS256.isValid(signature: signature.rawRepresentation, of: Data("x".utf8), by: read.keys["a"]!))
        #expect(!RS256.isValid(signature: signature.rawRepresentation, of: Data("x".utf8), by: read.keys["b"]!))
    }

    @Test func otherKeyTypesAreSkippedAndBadKeysRefused() throws {
        let good =
            try JSONSerialization.jsonObject(
                with: try JSONWebKeySet(keys: ["a": TestKeys.google.publicKey]).jsonData())
            as! [String: [[String: String]]]
        let rsa = good["keys"]![0]
        func read(_ keys: [[String: String]]) -> JSONWebKeySetError.Code? {
            do {
                _ = try JSONWebKeySet(jsonData: try JSONSerialization.data(withJSONObject: ["keys": keys]))
                return nil
            } catch let error as JSONWebKeySetError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(read([["kty": "EC", "kid": "e", "crv": "P-256"], rsa]) == nil)
        #expect(read([rsa, rsa]) == .duplicateKeyID)
        var noKid = rsa
        noKid["kid"] = nil
        #expect(read([noKid]) == .invalidKey)
        var badModulus = rsa
        badModulus["n"] = "AQAB"
        #expect(read([badModulus]) == .invalidKey)
        #expect(throws: JSONWebKeySetError(.malformed)) { try JSONWebKeySet(jsonData: Data("{}".utf8)) }
    }
}

@Suite struct ServiceAccountKeyTests {
    static let now = Instant(millisecondsSince1970: 1_750_000_000_000)

    static func key(tokenURI: String = "https://oauth2.googleapis.com/token") -> ServiceAccountKey {
        ServiceAccountKey(
            projectID: "project", privateKeyID: "key-1", clientEmail: "subledger@project.iam.gserviceaccount.com",
            clientID: "1", tokenURI: tokenURI, privateKey: TestKeys.account)
    }

    @Test func keyFileRoundTripsAndItsAssertionVerifies() throws {
        let read = try ServiceAccountKey(jsonData: try Self.key().jsonData())
        #expect(read.clientEmail == "subledger@project.iam.gserviceaccount.com")
        #expect(read.privateKeyID == "key-1")
        #expect(read.tokenURI == "https://oauth2.googleapis.com/token")
        let assertion = try read.assertion(now: Self.now)
        let verifier = ServiceAccountAssertionVerifier(
            clientEmail: read.clientEmail, keys: ["key-1": TestKeys.account.publicKey],
            audiences: [read.tokenURI])
        #expect(try verifier.verify(assertion, now: Self.now) == [ServiceAccountKey.androidPublisherScope])
        #expect(throws: JWTVerificationError(.expired)) {
            try verifier.verify(assertion, now: Self.now.adding(milliseconds: 3_700_000))
        }
        #expect(throws: JWTVerificationError(.notYetValid)) {
            try verifier.verify(assertion, now: Self.now.adding(milliseconds: -120_000))
        }
        let stranger = ServiceAccountAssertionVerifier(
            clientEmail: read.clientEmail, keys: ["key-1": TestKeys.other.publicKey], audiences: [read.tokenURI])
        #expect(throws: JWTVerificationError(.invalidSignature)) { try stranger.verify(assertion, now: Self.now) }
        let elsewhere = ServiceAccountAssertionVerifier(
            clientEmail: read.clientEmail, keys: ["key-1": TestKeys.account.publicKey], audiences: ["https://x"])
        #expect(throws: JWTVerificationError(.invalidAudience)) { try elsewhere.verify(assertion, now: Self.now) }
    }

    @Test func privateKeyIsReadAsPKCS8OrPKCS1() throws {
        var file = try JSONSerialization.jsonObject(with: try Self.key().jsonData()) as! [String: String]
        #expect(file["private_key"]?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        file["private_key"] = TestKeys.account.pemRepresentation
        #expect(file["private_key"]?.hasPrefix("-----BEGIN RSA PRIVATE KEY-----") == true)
        let read = try ServiceAccountKey(jsonData: try JSONSerialization.data(withJSONObject: file))
        #expect(read.privateKey.publicKey.derRepresentation == TestKeys.account.publicKey.derRepresentation)
    }

    @Test func assertionLivingLongerThanAnHourIsRefused() throws {
        struct Claims: Encodable {
            var iss = "subledger@project.iam.gserviceaccount.com"
            var scope = ServiceAccountKey.androidPublisherScope
            var aud = "https://oauth2.googleapis.com/token"
            var iat: Int64 = 1_750_000_000
            var exp: Int64 = 1_750_000_000 + 7200
        }
        let assertion = try RS256.sign(
            header: .init(alg: "RS256", kid: "key-1"), claims: Claims(), with: TestKeys.account)
        let verifier = ServiceAccountAssertionVerifier(
            clientEmail: "subledger@project.iam.gserviceaccount.com", keys: ["key-1": TestKeys.account.publicKey],
            audiences: ["https://oauth2.googleapis.com/token"])
        #expect(throws: JWTVerificationError(.lifetimeTooLong)) { try verifier.verify(assertion, now: Self.now) }
    }

    @Test func badKeyFilesAreRefusedNamingTheField() throws {
        func code(_ object: [String: String]) -> (ServiceAccountKeyError.Code, String?)? {
            do {
                _ = try ServiceAccountKey(jsonData: try JSONSerialization.data(withJSONObject: object))
                return nil
            } catch let error as ServiceAccountKeyError {
                return (error.code, error.field)
            } catch {
                return nil
            }
        }
        var file = try JSONSerialization.jsonObject(with: try Self.key().jsonData()) as! [String: String]
        #expect(code(file) == nil)
        file["type"] = "authorized_user"
        #expect(code(file)?.0 == .notAServiceAccount)
        file = try JSONSerialization.jsonObject(with: try Self.key().jsonData()) as! [String: String]
        file["client_email"] = nil
        #expect(code(file)?.1 == "client_email")
        file = try JSONSerialization.jsonObject(with: try Self.key().jsonData()) as! [String: String]
        file["token_uri"] = "http://oauth2.example.com/token"
        #expect(code(file)?.1 == "token_uri")
        file["token_uri"] = "http://127.0.0.1:9091/token"
        #expect(code(file) == nil)
        file["private_key"] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
        #expect(code(file)?.0 == .invalidPrivateKey)
        #expect(throws: ServiceAccountKeyError(.malformed)) { try ServiceAccountKey(jsonData: Data([0x7B, 0])) }
    }

    @Test func tokenRequestFormRoundTrips() throws {
        let body = OAuthTokenExchange.formBody(assertion: "a.b-_.c")
        #expect(body.hasPrefix("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="))
        let fields = try #require(OAuthTokenExchange.parseForm(Data(body.utf8)))
        #expect(fields["grant_type"] == OAuthTokenExchange.grantType)
        #expect(fields["assertion"] == "a.b-_.c")
        #expect(OAuthTokenExchange.parseForm(Data("a=1&a=2".utf8)) == nil)
        #expect(OAuthTokenExchange.parseForm(Data("a=%00".utf8)) == nil)
        let response = try JSONDecoder().decode(
            OAuthTokenResponse.self, from: Data(#"{"access_token":"x","expires_in":3599,"token_type":"Bearer"}"#.utf8))
        #expect(response.accessToken == "x")
        #expect(response.expiresIn == 3599)
    }
}

@Suite struct AndroidPublisherRouteTests {
    @Test func everyRouteRoundTripsThroughItsPath() {
        let routes: [AndroidPublisherRoute] = [
            .getSubscriptionV2(packageName: "com.example.app", token: "tok.en-_1"),
            .revokeSubscriptionV2(packageName: "com.example.app", token: "t"),
            .cancelSubscriptionV2(packageName: "com.example.app", token: "t"),
            .deferSubscriptionV2(packageName: "com.example.app", token: "t"),
            .acknowledgeSubscription(packageName: "com.example.app", subscriptionId: "pro.monthly", token: "t"),
            .getProduct(packageName: "com.example.app", productId: "coins", token: "t"),
            .acknowledgeProduct(packageName: "com.example.app", productId: "coins", token: "t"),
            .consumeProduct(packageName: "com.example.app", productId: "coins", token: "t"),
            .getProductV2(packageName: "com.example.app", token: "t"),
            .listVoidedPurchases(packageName: "com.example.app"),
        ]
        for route in routes {
            #expect(AndroidPublisherRoute(method: route.method, path: route.path) == route)
        }
        #expect(
            AndroidPublisherRoute.getSubscriptionV2(packageName: "p", token: "t").path
                == "/androidpublisher/v3/applications/p/purchases/subscriptionsv2/tokens/t")
        #expect(
            AndroidPublisherRoute.revokeSubscriptionV2(packageName: "p", token: "t").path
                == "/androidpublisher/v3/applications/p/purchases/subscriptionsv2/tokens/t:revoke")
    }

    @Test func otherPathsAndMethodsAreNotRoutes() {
        let base = "/androidpublisher/v3/applications/p/purchases/"
        #expect(AndroidPublisherRoute(method: "POST", path: base + "subscriptionsv2/tokens/t") == nil)
        #expect(AndroidPublisherRoute(method: "GET", path: base + "subscriptionsv2/tokens/t:revoke") == nil)
        #expect(AndroidPublisherRoute(method: "POST", path: base + "subscriptionsv2/tokens/t:explode") == nil)
        #expect(AndroidPublisherRoute(method: "GET", path: base + "subscriptions/x/tokens/t") == nil)
        #expect(AndroidPublisherRoute(method: "GET", path: base + "subscriptionsv2/tokens/a%00b") == nil)
        #expect(AndroidPublisherRoute(method: "GET", path: base + "subscriptionsv2/tokens/") == nil)
        #expect(AndroidPublisherRoute(method: "GET", path: "/androidpublisher/v2/applications/p/purchases/x") == nil)
    }
}

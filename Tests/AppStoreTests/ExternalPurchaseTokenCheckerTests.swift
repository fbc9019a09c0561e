import AppStore
import Foundation
import SubLedgerCore
import Testing

/// Decoding and checking the external purchase token an app passes with an order: base64url JSON of this app,
/// created at a possible moment, of a token type Apple issues; anything else refused with a named reason.
@Suite struct ExternalPurchaseTokenCheckerTests {
    static let now = Instant(millisecondsSince1970: 1_767_225_600_000)  // 2026-01-01
    static let checker = ExternalPurchaseTokenChecker(
        configuration: .init(bundleID: "com.example", appAppleID: 55555))

    /// base64url (unpadded) of a JSON text.
    static func token(_ json: String) -> String { Base64URL.encode(Data(json.utf8)) }

    static func token(
        id: String = "b2158121-7af9-49d4-9561-1f588205523e", created: Int64 = 1_767_225_000_000,
        appAppleID: Int64 = 55555, bundleID: String = "com.example", type: String? = "ACQUISITION"
    ) -> String {
        var fields = [
            "\"externalPurchaseId\":\"\(id)\"", "\"tokenCreationDate\":\(created)", "\"appAppleId\":\(appAppleID)",
            "\"bundleId\":\"\(bundleID)\"",
        ]
        if let type { fields.append("\"tokenType\":\"\(type)\"") }
        return token("{" + fields.joined(separator: ",") + "}")
    }

    static func refusal(_ token: String, now: Instant = now) -> ExternalPurchaseTokenError.Code? {
        do {
            _ = try checker.check(token, now: now)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func aTokenOfTheAppIsDecoded() throws {
        let checked = try Self.checker.check(Self.token(), now: Self.now)
        #expect(checked.externalPurchaseID == "b2158121-7af9-49d4-9561-1f588205523e")
        #expect(checked.bundleID == "com.example")
        #expect(checked.appAppleID == 55555)
        #expect(checked.createdAt == Instant(millisecondsSince1970: 1_767_225_000_000))
        #expect(checked.tokenType == .acquisition)
        #expect(checked.environment == .production)
        let services = try Self.checker.check(Self.token(id: "SANDBOX_1", type: "SERVICES"), now: Self.now)
        #expect(services.tokenType == .services)
        #expect(services.environment == .sandbox)
        // A plain (not custom link) token has no type; padding is accepted as base64url allows it.
        let plain = Self.token(type: nil)
        #expect(try Self.checker.check(plain, now: Self.now).tokenType == nil)
        let padded = plain + String(repeating: "=", count: (4 - plain.utf8.count % 4) % 4)
        #expect(try Self.checker.check(padded, now: Self.now).externalPurchaseID == checked.externalPurchaseID)
    }

    @Test func malformedTokensAreRefused() {
        #expect(Self.refusal("") == .malformed)
        #expect(Self.refusal("not base64url!") == .malformed)
        #expect(Self.refusal("a") == .malformed)
        #expect(Self.refusal(Self.token("[1,2]")) == .malformed)
        #expect(Self.refusal(Self.token("{\"externalPurchaseId\":")) == .malformed)
        #expect(Self.refusal(Base64URL.encode(Data([0x7B, 0xFF, 0xFE, 0x7D]))) == .malformed)
        #expect(Self.refusal(Self.token("{\"externalPurchaseId\":\"a\"}\u{0}")) == .malformed)
        // NUL escaped in a text, in the id or the bundle id.
        #expect(Self.refusal(Self.token(id: "abc\\u0000def")) == .malformed)
        #expect(Self.refusal(Self.token(bundleID: "com.example\\u0000")) == .malformed)
        // Longer than any token Apple issues.
        #expect(Self.refusal(Self.token(id: String(repeating: "a", count: 5000))) == .malformed)
        #expect(Self.refusal(Self.token(id: String(repeating: "a", count: 129))) == .invalidIdentifier)
        #expect(Self.refusal(Self.token(id: "has space")) == .invalidIdentifier)
        #expect(Self.refusal(Self.token(id: "")) == .invalidIdentifier)
    }

    @Test func anotherAppsTokenIsRefused() {
        #expect(Self.refusal(Self.token(bundleID: "com.other")) == .wrongBundle)
        #expect(Self.refusal(Self.token(appAppleID: 66666)) == .wrongApp)
        let withoutAppleID = ExternalPurchaseTokenChecker(configuration: .init(bundleID: "com.example"))
        #expect((try? withoutAppleID.check(Self.token(appAppleID: 66666), now: Self.now)) != nil)
    }

    @Test func missingFieldsAreNamed() throws {
        let cases = [
            (
                "{\"tokenCreationDate\":1767225000000,\"appAppleId\":55555,\"bundleId\":\"com.example\"}",
                "externalPurchaseId"
            ),
            ("{\"externalPurchaseId\":\"a\",\"tokenCreationDate\":1767225000000,\"appAppleId\":55555}", "bundleId"),
            (
                "{\"externalPurchaseId\":\"a\",\"tokenCreationDate\":1767225000000,\"bundleId\":\"com.example\"}",
                "appAppleId"
            ),
            ("{\"externalPurchaseId\":\"a\",\"appAppleId\":55555,\"bundleId\":\"com.example\"}", "tokenCreationDate"),
        ]
        for (json, field) in cases {
            #expect(throws: ExternalPurchaseTokenError(.missingField, field: field)) {
                try Self.checker.check(Self.token(json), now: Self.now)
            }
        }
    }

    @Test func theCreationDateMustBeAPossibleMoment() {
        // Within the allowed clock skew of now: accepted; beyond it, or far in the future: refused.
        #expect(Self.refusal(Self.token(created: Self.now.millisecondsSince1970 + 60_000)) == nil)
        #expect(
            Self.refusal(Self.token(created: Self.now.millisecondsSince1970 + 86_400_000)) == .creationDateOutOfRange)
        // Before Apple's External Purchase API existed.
        #expect(Self.refusal(Self.token(created: 1_600_000_000_000)) == .creationDateOutOfRange)
        // No representable date at all (before 1970, past year 9999) fails decoding, as every Apple date does.
        #expect(Self.refusal(Self.token(created: Int64.max)) == .malformed)
        #expect(Self.refusal(Self.token(created: -1)) == .malformed)
        // `now` at the end of time cannot overflow the skew.
        #expect(Self.refusal(Self.token(), now: Instant(millisecondsSince1970: Int64.max)) == nil)
    }

    @Test func anUnknownTokenTypeIsRefused() {
        #expect(Self.refusal(Self.token(type: "GIFT")) == .unknownTokenType)
        #expect(Self.refusal(Self.token(type: "LINK_OUT")) == nil)
    }
}

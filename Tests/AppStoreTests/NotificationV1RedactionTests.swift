import AppStore
import Crypto
import Foundation
import Testing

/// A V1 body is stored without the shared secret Apple echoes in `password`, and otherwise byte for byte.
@Suite struct NotificationV1RedactionTests {
    static func redact(_ text: String) -> String {
        String(decoding: NotificationV1Redaction.removingPassword(from: Data(text.utf8)), as: UTF8.self)
    }

    @Test func thePasswordIsRemovedAndEveryOtherByteKept() throws {
        let body = ServerNotificationDecoderTests.v1Body
        let redacted = Self.redact(body)
        #expect(!redacted.contains("app-shared-secret"))
        #expect(!redacted.contains("password"))
        #expect(redacted == body.replacingOccurrences(of: "\n  \"password\": \"app-shared-secret\",", with: ""))
        // Still the same notification to a decoder (except for the password).
        var expected = try JSONDecoder().decode(NotificationV1Payload.self, from: Data(body.utf8))
        expected.password = nil
        #expect(try JSONDecoder().decode(NotificationV1Payload.self, from: Data(redacted.utf8)) == expected)
    }

    @Test(arguments: [
        (#"{"password":"s","a":1}"#, #"{"a":1}"#),
        (#"{"a":1,"password":"s"}"#, #"{"a":1}"#),
        // A kept member keeps the separator written before it.
        (#"{"a":1, "password" : "s" , "b":[1,{"c":"}"}]}"#, #"{"a":1 , "b":[1,{"c":"}"}]}"#),
        (#"{"password":"s"}"#, #"{}"#),
        (#" {"pass\u0077ord":"s","a":"x"} "#, #" {"a":"x"} "#),
        (#"{"password":"s","a":1,"password":"t"}"#, #"{"a":1}"#),
        (
            #"{"a":{"password":"nested is not Apple's"},"password":"s\"q"}"#,
            #"{"a":{"password":"nested is not Apple's"}}"#
        ),
        (#"{"passwords":"x","Password":"y"}"#, #"{"passwords":"x","Password":"y"}"#),
        (#"{"a":"é","password":null,"n":-1.5e3,"t":true}"#, #"{"a":"é","n":-1.5e3,"t":true}"#),
    ])
    func thePasswordMemberIsCutOutOfTheText(body: String, expected: String) {
        #expect(Self.redact(body) == expected)
    }

    @Test func aBodyWithoutAPasswordIsReturnedUnchanged() {
        let body = Data(#"{ "notification_type" : "DID_RENEW",  "n": 1.0 }"#.utf8)
        #expect(NotificationV1Redaction.removingPassword(from: body) == body)
    }

    @Test func deepNestingIsFollowedWithoutRecursion() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(Self.redact(#"{"a":"# + deep + #","password":"s"}"#) == #"{"a":"# + deep + "}")
    }

    @Test func aBodyTheScannerCannotFollowIsStillNeverStoredWithThePassword() {
        // Not JSON this scanner accepts (a trailing comma): the fallback re-encodes without the member.
        #expect(!Self.redact(#"{"password":"s3cret","a":1,}"#).contains("s3cret"))
        #expect(!Self.redact("not json password s3cret").contains("s3cret"))
    }

    /// The stored notification id is the digest of the body as received, not of the stored (redacted) body,
    /// so Apple's retries of one notification keep one id.
    @Test func theNotificationIDIsTheDigestOfTheBodyAsReceived() throws {
        let body = Data(ServerNotificationDecoderTests.v1Body.utf8)
        let verified = try ServerNotificationDecoderTests.productionDecoder().decodeV1(body: body)
        let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
        #expect(verified.notification.notificationID == digest)
        #expect(NotificationV1Redaction.removingPassword(from: body) != body)
    }
}

import Foundation
import GooglePlay
import Testing

@Suite struct WireTextTests {
    @Test func identifiersAreBoundedAndFreeOfControlCharacters() {
        #expect(WireText.isAcceptable("com.example.app", maximumLength: WireText.maximumPackageNameLength))
        #expect(!WireText.isAcceptable("", maximumLength: 10))
        #expect(!WireText.isAcceptable(String(repeating: "a", count: 11), maximumLength: 10))
        #expect(!WireText.isAcceptable("a\u{0}b", maximumLength: 10))
        #expect(!WireText.isAcceptable("a\nb", maximumLength: 10))
        #expect(!WireText.isAcceptable("a\u{7F}", maximumLength: 10))
        // The bound is in UTF-8 bytes: four two-byte letters are eight.
        #expect(WireText.isAcceptable("éééé", maximumLength: 8))
        #expect(!WireText.isAcceptable("éééé", maximumLength: 7))
    }

    @Test func base64URLIsUnpaddedAndStrict() {
        let bytes = Data([0xFB, 0xFF, 0xBF, 0x00, 0x10])
        let text = Base64URL.encode(bytes)
        #expect(text == "-_-_ABA")
        #expect(Base64URL.decode(text) == bytes)
        #expect(Base64URL.decode("-_-_ABA=") == nil)
        #expect(Base64URL.decode("+/+/ABA") == nil)
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.decode("") == Data())
    }

    @Test func deferDurationIsReadAsWholeSeconds() {
        func seconds(_ text: String?) -> Int64? { DeferralContext(deferDuration: text).deferSeconds }
        #expect(seconds("86400s") == 86_400)
        #expect(seconds("86400.5s") == 86_400)
        #expect(seconds("86400") == nil)
        #expect(seconds("-1s") == nil)
        #expect(seconds("1.s") == nil)
        #expect(seconds("1.xs") == nil)
        #expect(seconds("9999999999999s") == nil)
        #expect(seconds(nil) == nil)
    }

    @Test func revocationContextCountsItsMembers() {
        #expect(RevocationContext().memberCount == 0)
        #expect(RevocationContext(fullRefund: EmptyContext()).memberCount == 1)
        #expect(RevocationContext(fullRefund: EmptyContext(), proratedRefund: EmptyContext()).memberCount == 2)
    }

    @Test func googleErrorBodiesNameTheirStatus() throws {
        #expect(GoogleAPIError.statusName(forHTTPStatus: 400) == "INVALID_ARGUMENT")
        #expect(GoogleAPIError.statusName(forHTTPStatus: 401) == "UNAUTHENTICATED")
        #expect(GoogleAPIError.statusName(forHTTPStatus: 404) == "NOT_FOUND")
        #expect(GoogleAPIError.statusName(forHTTPStatus: 503) == "UNAVAILABLE")
        let text =
            #"{"error":{"code":400,"message":"Invalid Value","errors":[{"message":"Invalid Value","domain":"global","reason":"invalid"}],"status":"INVALID_ARGUMENT"}}"#
        let body = try JSONDecoder().decode(GoogleAPIErrorBody.self, from: Data(text.utf8))
        #expect(body.error.code == 400)
        #expect(body.error.errors?.first?.reason == "invalid")
    }

    @Test func pushEnvelopeWritesGooglesSpellings() throws {
        let message = PubSubMessage(data: "e30=", messageId: "1", publishTime: "2025-01-01T00:00:00Z")
        let encoded = try JSONEncoder().encode(
            PubSubPushEnvelope(message: message, subscription: "projects/p/subscriptions/s"))
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains(#""messageId":"1""#))
        #expect(!text.contains("message_id"))
        #expect(try JSONDecoder().decode(PubSubPushEnvelope.self, from: encoded).message == message)
    }
}
